# bounded.bash — sourced by the tests/cli scripts that bound a command's memory and
# time (hostile_sim_bounds.sh, hostile_lengths.sh; not a test itself). Needs $KVPLAN.
# Gives $sanitized (1 for an ASan/TSan/MSan binary, whose shadow memory makes memory
# and time bounds meaningless) and
#   bounded_run ERRFILE AS_MIB TIMEOUT_S -- command
# which runs the command (stdin and stdout /dev/null, stderr to ERRFILE) under an
# address-space limit of AS_MIB MiB (RLIMIT_AS, as `ulimit -v`; 0 = none) and prints
# "RC PEAK_RSS_MIB SECONDS": RC is the exit status, -N for a kill by signal N, or
# "timeout". The peak is the child's maximum RSS (getrusage), seconds the wall clock.
sanitized=0
grep -qa "__asan_init\|__tsan_init\|__msan_init" "$KVPLAN" && sanitized=1
bounded_run() {
    local errfile=$1 as_mib=$2 secs=$3
    shift 4
    python3 - "$errfile" "$as_mib" "$secs" "$@" <<'PY'
import resource, subprocess, sys, time
err = open(sys.argv[1], "wb")
as_bytes = int(sys.argv[2]) << 20
def limit():
    resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
t = time.time()
try:
    rc = subprocess.run(sys.argv[4:], stdout=subprocess.DEVNULL, stderr=err,
                        stdin=subprocess.DEVNULL, timeout=float(sys.argv[3]),
                        preexec_fn=limit if as_bytes else None).returncode
except subprocess.TimeoutExpired:
    rc = "timeout"
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024,
      "%.2f" % (time.time() - t))
PY
}
