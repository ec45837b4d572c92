import sys
block = b'x' * (1 << 20)
for i in range(200):
    sys.stdout.buffer.write(block)
sys.stdout.flush()
