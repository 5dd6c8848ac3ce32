/**
 * Python scripts the job runner's tests run (real processes, written into a temp project). Each is
 * small and says in its header what it proves.
 */

/**
 * A tree of three processes: main → child → grandchild (each started with subprocess, so each is in
 * the job's process group). Every process writes `<role>.pid` once its handlers are in place, logs
 * every SIGINT/SIGTERM it receives to `<role>.signals`, ignores SIGINT, and exits on SIGTERM unless
 * its role is listed in argv[2] ("stubborn": then only SIGKILL ends it).
 * argv: <logdir> <stubborn roles, comma-separated or "-"> [role]
 */
export const TREE_SCRIPT = `
import os, signal, subprocess, sys, time
logdir, stubborn = sys.argv[1], sys.argv[2].split(",")
role = sys.argv[3] if len(sys.argv) > 3 else "main"
nxt = {"main": "child", "child": "grandchild"}.get(role)
log = open(os.path.join(logdir, role + ".signals"), "a", buffering=1)

def on_signal(num, frame):
    name = signal.Signals(num).name
    log.write(name + "\\n")
    if name == "SIGTERM" and role not in stubborn:
        os._exit(0)

signal.signal(signal.SIGINT, on_signal)
signal.signal(signal.SIGTERM, on_signal)
if nxt:
    subprocess.Popen([sys.executable, __file__, logdir, sys.argv[2], nxt])
with open(os.path.join(logdir, role + ".pid.tmp"), "w") as f:
    f.write(str(os.getpid()))
os.rename(os.path.join(logdir, role + ".pid.tmp"), os.path.join(logdir, role + ".pid"))
print("ready", role, os.getpid(), flush=True)
while True:
    time.sleep(0.05)
`;

/** Prints `ready`, then waits for the file argv[1] to exist; Ctrl+C (SIGINT) ends it through its finally block. */
export const WAIT_FOR_FILE_SCRIPT = `
import json, os, sys, time
go = sys.argv[1]
print("ready", os.getpid(), flush=True)
try:
    while not os.path.exists(go):
        time.sleep(0.05)
    print("AGENTSWARM_RESULT " + json.dumps({"reward": 1.0}))
finally:
    print("cleanup ran", flush=True)
`;

/** The env and folder a run gets, as its result (values, no secrets: the LLM key only as a hash). */
export const PRINT_ENV_SCRIPT = `
import hashlib, json, os
def h(name):
    v = os.environ.get(name)
    return hashlib.sha256(v.encode()).hexdigest() if v is not None else None
print("AGENTSWARM_RESULT " + json.dumps({
    "reward": 0.5,
    "cwd": os.getcwd(),
    "AJET_SWARM_URL": os.environ.get("AJET_SWARM_URL"),
    "REMOTE_MODEL_PATH": os.environ.get("REMOTE_MODEL_PATH"),
    "OPENAI_BASE_URL": os.environ.get("OPENAI_BASE_URL"),
    "OPENAI_MODEL": os.environ.get("OPENAI_MODEL"),
    "EXTRA": os.environ.get("AGENTSWARM_TEST_EXTRA"),
    "OPENAI_API_KEY_sha256": h("OPENAI_API_KEY"),
    "API_KEY_sha256": h("API_KEY"),
}))
`;
