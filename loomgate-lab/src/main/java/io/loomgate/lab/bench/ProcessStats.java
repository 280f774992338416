package io.loomgate.lab.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and peak memory of a process, read from Linux's {@code /proc}: user + system time from
 * {@code /proc/PID/stat}, peak resident set (VmHWM) from {@code /proc/PID/status}, and the peak reset through
 * {@code /proc/PID/clear_refs} at the start of a measurement so that it covers the measured window only.
 */
final class ProcessStats {
    private static final long TICKS_PER_SECOND = clockTicks();

    private ProcessStats() {
    }

    /** CPU seconds (user + system) used so far by the process; 0 if it cannot be read. */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // Fields after the command name, which is in parentheses and may hold spaces: state is field 3,
            // utime field 14 and stime field 15 (proc(5)).
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / (double) TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Peak resident memory in MB since start or the last {@link #resetPeak}; 0 if it cannot be read. */
    static double peakRssMb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process is gone or this is not Linux
        }
        return 0;
    }

    /** Resets the peak resident memory to the current one (clear_refs value 5, proc(5)); false if refused. */
    static boolean resetPeak(long pid) {
        try {
            Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Long.parseLong(out);
        } catch (IOException | RuntimeException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
