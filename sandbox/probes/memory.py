import sys
chunks = []
for i in range(512):
    b = bytearray(1 << 20)
    for j in range(0, len(b), 4096):
        b[j] = 1
    chunks.append(b)
print('ALLOCATED', len(chunks), 'MiB', flush=True)
