package io.paysync.bench;

import com.sun.tools.attach.VirtualMachine;

/**
 * Loads a native agent into a running JVM, as async-profiler's own launcher does: bench/profile-b1-compare.sh starts
 * and stops async-profiler in both servers after their warm-up. {@code jcmd JVMTI.agent_load} does not pass the
 * options through on this JDK. Usage: ProfilerAttach PID AGENT_PATH OPTIONS
 */
public final class ProfilerAttach {

    private ProfilerAttach() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: ProfilerAttach PID AGENT_PATH OPTIONS");
            System.exit(2);
        }
        VirtualMachine vm = VirtualMachine.attach(args[0]);
        try {
            vm.loadAgentPath(args[1], args[2]);
        } finally {
            vm.detach();
        }
    }
}
