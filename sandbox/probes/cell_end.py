import json, os, time
for n in range(1, 200):
    try:
        os.write(4, (json.dumps({"done": n, "status": "ok"}) + "\n").encode())
    except OSError:
        break
print('FORGED', flush=True)
time.sleep(40)
print('RAN-ON')
