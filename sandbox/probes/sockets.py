import socket
bad = []
def refused(what, fn):
    try:
        s = fn()
        s.close()
        bad.append(what + ' created')
    except OSError:
        pass
refused('AF_VSOCK socket', lambda: socket.socket(40, socket.SOCK_STREAM))
refused('AF_VSOCK datagram socket', lambda: socket.socket(40, socket.SOCK_DGRAM))
refused('AF_PACKET socket', lambda: socket.socket(17, socket.SOCK_RAW, 0x0300))
refused('raw IP socket', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
refused('AF_ALG socket', lambda: socket.socket(38, socket.SOCK_SEQPACKET))
params = ctypes.create_string_buffer(120)
r, e = sc(SYS['io_uring_setup'], 4, params)
if r >= 0:
    bad.append('io_uring_setup worked')
# What the code needs still works.
a, b = socket.socketpair(); a.close(); b.close()
s = socket.socket(); s.close()
