package io.loomgate.upstream;

import java.io.IOException;
import java.net.InetAddress;
import java.util.List;

/**
 * Looks up the addresses of a host name: the seam between DNS re-resolution ({@link DnsRefresh}) and whatever
 * answers. {@link #JDK} is the gateway's: {@link InetAddress#getAllByName}, which reads the hosts file (or the file
 * {@code -Djdk.net.hosts.file} names) and then asks DNS, through the JDK's cache ({@link JdkDnsCache}). A call may
 * block for as long as the system resolver takes; {@link DnsRefresh} runs it on a thread of its own with a deadline.
 */
@FunctionalInterface
public interface NameResolver {
    /** The JDK's resolver. */
    NameResolver JDK = host -> List.of(InetAddress.getAllByName(host));

    /**
     * Every address {@code host} has now.
     *
     * @throws java.net.UnknownHostException when it has none
     */
    List<InetAddress> resolve(String host) throws IOException;
}
