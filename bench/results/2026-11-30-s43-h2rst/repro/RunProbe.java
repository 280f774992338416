import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/** Runs HostileProbeTest once in this (fresh) JVM: a cold gateway per run, without Maven's start. */
public class RunProbe {
    public static void main(String[] args) throws Exception {
        LauncherDiscoveryRequest r = request().selectors(selectClass(Class.forName("io.loomgate.http2.HostileProbeTest"))).build();
        Launcher l = LauncherFactory.create();
        SummaryGeneratingListener s = new SummaryGeneratingListener();
        l.execute(r, s);
        s.getSummary().printFailuresTo(new java.io.PrintWriter(System.out), 5);
        System.out.println("RESULT tests=" + s.getSummary().getTestsSucceededCount() + " failed=" + s.getSummary().getTestsFailedCount() + " aborted=" + s.getSummary().getTestsAbortedCount());
        System.exit(0);
    }
}
