import os
bad = []
st = {}
for line in open('/proc/self/status'):
    k, _, v = line.partition(':')
    st[k] = v.strip()
if int(st.get('CapEff', '1'), 16) != 0 or int(st.get('CapPrm', '1'), 16) != 0 or int(st.get('CapBnd', '1'), 16) != 0:
    bad.append('capabilities: eff %s prm %s bnd %s' % (st.get('CapEff'), st.get('CapPrm'), st.get('CapBnd')))
if st.get('NoNewPrivs') != '1':
    bad.append('no-new-privileges is off')
if st.get('Seccomp') != '2':
    bad.append('no seccomp filter (Seccomp=%s)' % st.get('Seccomp'))
if os.getuid() == 0 or os.geteuid() == 0:
    bad.append('runs as root inside')
if os.uname().nodename != 'sandbox':
    bad.append('host name is %s' % os.uname().nodename)
try:
    os.setuid(0)
    bad.append('setuid(0) worked')
except OSError:
    pass
try:
    open('/proc/1/environ').read()
    bad.append('read the runner\'s /proc/1/environ')
except OSError:
    pass
try:
    os.kill(1, 9)
except OSError:
    pass
