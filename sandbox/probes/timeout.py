import os, signal, time, ctypes
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv('/bin/sleep', ['sleep', 'MARKER'])
    os._exit(0)
print('started', flush=True)
ctypes.CDLL(None).sleep(1000)
