# The verdict of a probe that lists in bad what got through (appended to
# it): a BROKEN line for each, else HELD.
for line in bad:
    print('BROKEN', line)
if not bad:
    print('HELD')
