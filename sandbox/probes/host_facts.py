import os
bad = []
mi = open('/proc/self/mountinfo').read()
for word in ('WORKDIR', os.path.basename('WORKDIR')):
    if word and word in mi:
        bad.append('the mount table names the input\'s host folder %s' % word)
hn = 'HOSTNAME'
for line in open('/etc/hosts'):
    f = line.split('#')[0].split()
    if not f:
        continue
    for name in f[1:]:
        if name not in ('localhost', 'ip6-localhost', 'ip6-loopback', 'sandbox'):
            bad.append('/etc/hosts names %s (%s)' % (name, f[0]))
    if f[0] not in ('127.0.0.1', '::1', '127.0.1.1'):
        bad.append('/etc/hosts holds address %s' % f[0])
if hn not in ('', 'localhost', 'sandbox') and hn in open('/etc/hosts').read():
    bad.append('/etc/hosts names the host %s' % hn)
try:
    rc = open('/etc/resolv.conf').read()
    if any(l.split()[:1] in (['nameserver'], ['search'], ['domain']) for l in rc.splitlines()):
        bad.append('/etc/resolv.conf holds %r' % rc.strip()[:200])
except OSError:
    pass
