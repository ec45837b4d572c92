import os, time
n = 0
pids = []
for i in range(64):
    try:
        p = os.fork()
    except OSError:
        break
    if p == 0:
        time.sleep(30)
        os._exit(0)
    pids.append(p)
    n += 1
print('FORKED', n, flush=True)
