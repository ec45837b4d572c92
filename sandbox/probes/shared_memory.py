bad = []
try:
    os.memfd_create("x")
    bad.append("memfd_create worked")
except OSError:
    pass
nr = 29 if os.uname().machine == 'x86_64' else 194
r, e = sc(nr, 0, 1 << 20, 0o1600)
if r >= 0:
    bad.append("shmget worked")
from multiprocessing import shared_memory
m = shared_memory.SharedMemory(create=True, size=1 << 20)
m.buf[0] = 7
m.close(); m.unlink()
