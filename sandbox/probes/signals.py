import os, signal, sys, time
print('PRINTED-BEFORE', flush=True)
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGCHLD):
    try:
        os.kill(1, s)
    except OSError as e:
        print('kill', s, e)
    time.sleep(0.05)
time.sleep(0.3)
print('AFTER', flush=True)
