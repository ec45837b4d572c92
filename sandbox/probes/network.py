import os, socket, subprocess, sys
bad = []
nets = sorted(os.listdir('/sys/class/net'))
if nets != ['lo']:
    bad.append('network interfaces: %s' % nets)
for host, port in (('1.1.1.1', 53), ('10.0.2.2', 80), ('192.168.1.1', 80), ('8.8.8.8', 443)):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect((host, port))
        bad.append('connected to %s:%d' % (host, port))
    except OSError:
        pass
    finally:
        s.close()
try:
    socket.getaddrinfo('deb.debian.org', 80)
    bad.append('resolved a host name')
except OSError:
    pass
r = subprocess.run([sys.executable, '-m', 'pip', 'install', 'requests'], capture_output=True, timeout=20)
if r.returncode == 0:
    bad.append('pip install succeeded')
