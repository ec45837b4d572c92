import os, matplotlib.pyplot as plt
os.symlink('/etc/passwd', '/mnt/data/link-to-passwd')
os.symlink('/mnt/data/input data.csv', '/mnt/data/link-to-input')
os.mkfifo('/mnt/data/fifo')
open('/mnt/data/hardlink-a.txt', 'w').write('a')
os.link('/mnt/data/hardlink-a.txt', '/mnt/data/hardlink-b.txt')
open('/mnt/data/new\nline.txt', 'w').write('n')
open(b'/mnt/data/bad-\xff.txt', 'w').write('b')
os.makedirs('/mnt/data/sub/dir', exist_ok=True)
open('/mnt/data/sub/dir/ok.txt', 'w').write('ok')
for i in range(20):
    open('/mnt/data/many-%02d.txt' % i, 'w').write('m')
try:
    with open('/mnt/data/huge.bin', 'wb') as f:
        f.write(b'\0' * (8 << 20))
except OSError as e:
    print('huge:', e)
plt.plot([1, 2, 3])
plt.show()
print('done')
