KEY_SPEC_USER_KEYRING = -4
KEYCTL_JOIN_SESSION_KEYRING = 1
KEYCTL_LINK = 8
r, e = sc(SYS['keyctl'], KEYCTL_JOIN_SESSION_KEYRING, ctypes.c_char_p(b'rehome-TOKEN'))
r2, e2 = sc(SYS['add_key'], ctypes.c_char_p(b'user'), ctypes.c_char_p(b'rehome-TOKEN'), ctypes.c_char_p(b'TOKEN'), 5, KEY_SPEC_USER_KEYRING)
if r >= 0:
    sc(SYS['keyctl'], KEYCTL_LINK, r, KEY_SPEC_USER_KEYRING)
if r >= 0 or r2 >= 0:
    print('PLANTED join=%d add_key=%d' % (r, r2))
else:
    print('HELD keyctl: %s, add_key: %s' % (errno.errorcode.get(e, e), errno.errorcode.get(e2, e2)))
