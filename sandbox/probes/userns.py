bad = []
CLONE_NEWUSER = 0x10000000
if libc.unshare(CLONE_NEWUSER) == 0:
    bad.append('unshare(CLONE_NEWUSER) worked')
SIGCHLD = 17
r, e = sc(SYS['clone'], CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
    bad.append('clone(CLONE_NEWUSER) worked')
args = (ctypes.c_uint64 * 11)(CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0)
r, e = sc(SYS['clone3'], ctypes.byref(args), 88)
if r == 0:
    os._exit(0)
if r > 0:
    os.waitpid(r, 0)
    bad.append('clone3(CLONE_NEWUSER) worked')
try:
    if os.fork() == 0:
        os._exit(0)
    os.wait()
except OSError as ex:
    bad.append('fork failed: %s' % ex)
import threading
t = threading.Thread(target=lambda: None); t.start(); t.join()
m = open('/proc/self/uid_map').read().split()
print('MAP uid_map %s' % ' '.join(m))
if m[:3] != ['0', '0', '4294967295']:
    print('OWNNS')
