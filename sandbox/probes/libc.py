import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def sc(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return r, (ctypes.get_errno() if r < 0 else 0)
SYS = {'add_key': 248, 'request_key': 249, 'keyctl': 250, 'unshare': 272, 'clone': 56, 'clone3': 435,
       'io_uring_setup': 425, 'socket': 41}
if os.uname().machine == 'aarch64':
    SYS = {'add_key': 217, 'request_key': 218, 'keyctl': 219, 'unshare': 97, 'clone': 220, 'clone3': 435,
           'io_uring_setup': 425, 'socket': 198}
