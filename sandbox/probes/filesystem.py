import os, stat, errno
bad = []
def expect_fail(what, fn):
    try:
        fn()
        bad.append(what)
    except OSError:
        pass
data = os.listdir('/mnt/data')
if data != ['input data.csv']:
    bad.append('/mnt/data holds %r' % data)
if open('/mnt/data/input data.csv').read() != 'a,b\n1,2\n':
    bad.append('the input reads wrong')
expect_fail('read the host file next to the input', lambda: open('SECRET').read())
expect_fail('list the input folder', lambda: os.listdir('WORKDIR'))
expect_fail('write the input', lambda: open('/mnt/data/input data.csv', 'a').write('x'))
expect_fail('write the root file system', lambda: open('/etc/rehome-probe', 'w').write('x'))
expect_fail('write /usr', lambda: open('/usr/rehome-probe', 'w').write('x'))
def big():
    with open('/tmp/fill', 'wb') as f:
        for _ in range(1024):
            f.write(b'\0' * (1 << 20))
expect_fail('fill /tmp past its size', big)
os.unlink('/tmp/fill')
# Every mount: none writable from the host but the sized tmpfs, none a socket.
for line in open('/proc/self/mountinfo'):
    f = line.split()
    point, opts = f[4], f[5]
    sep = f.index('-')
    fstype, source = f[sep + 1], f[sep + 2]
    if 'podman.sock' in line or 'docker.sock' in line:
        bad.append('a container socket is mounted: ' + point)
    if fstype in ('tmpfs', 'proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts', 'mqueue', 'devtmpfs'):
        continue
    if point == '/':
        if 'ro' not in opts.split(','):
            bad.append('the root file system is writable')
        continue
    try:
        st = os.stat(point)
    except OSError:
        continue
    if stat.S_ISDIR(st.st_mode):
        if os.access(point, os.W_OK) and 'ro' not in opts.split(','):
            bad.append('host folder writable: ' + point)
    elif stat.S_ISREG(st.st_mode):
        try:
            with open(point, 'a'):
                bad.append('host file writable: ' + point)
        except OSError:
            pass
for k in os.environ:
    if k not in ('PATH', 'HOME', 'LANG', 'TMPDIR', 'MPLBACKEND', 'MPLCONFIGDIR', 'PYTHONUNBUFFERED',
                 'PYTHONDONTWRITEBYTECODE', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'LC_CTYPE'):
        bad.append('environment variable from outside: ' + k)
