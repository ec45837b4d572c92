KEY_SPEC_USER_KEYRING = -4
KEYCTL_READ = 11
KEYCTL_DESCRIBE = 6
found = []
buf = ctypes.create_string_buffer(4096)
r, e = sc(SYS['keyctl'], KEYCTL_READ, KEY_SPEC_USER_KEYRING, buf, 4096)
if r >= 0:
    n = min(r, 4096) // 4
    ids = [int.from_bytes(buf.raw[i*4:i*4+4], 'little') for i in range(n)]
    for k in ids:
        d = ctypes.create_string_buffer(512)
        if sc(SYS['keyctl'], KEYCTL_DESCRIBE, k, d, 512)[0] > 0 and b'TOKEN' in d.value:
            found.append(d.value.decode('utf-8', 'replace'))
r2, e2 = sc(SYS['request_key'], ctypes.c_char_p(b'user'), ctypes.c_char_p(b'rehome-TOKEN'), None, 0)
if r2 >= 0:
    found.append('request_key found it')
if found:
    print('FOUND', found)
elif r < 0:
    print('HELD keyctl(KEYCTL_READ @u): %s' % errno.errorcode.get(e, e))
else:
    print('HELD nothing of the first run in this run\'s user keyring')
