import resource
bad = []
try:
    resource.prlimit(1, resource.RLIMIT_NOFILE, (5, 5))
    bad.append("prlimit(1, NOFILE, 5) worked")
except OSError:
    pass
try:
    os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))
    bad.append("sched_setscheduler(1, SCHED_IDLE) worked")
except OSError:
    pass
try:
    os.setpriority(os.PRIO_PROCESS, 1, 19)
    bad.append("setpriority(PRIO_PROCESS, 1, 19) worked")
except OSError:
    pass
print('x' * 10000)
