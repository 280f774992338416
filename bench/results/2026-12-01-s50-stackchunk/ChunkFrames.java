import java.util.*;
import sun.jvm.hotspot.HotSpotAgent;
import sun.jvm.hotspot.code.*;
import sun.jvm.hotspot.debugger.Address;
import sun.jvm.hotspot.oops.*;
import sun.jvm.hotspot.runtime.VM;

/**
 * ChunkFrames PID ADDRS [MATCH]: reads the chunks' addresses and fields (chunks.py's second output), attaches the serviceability agent to a running JVM (it stops while attached), walks each
 * jdk.internal.vm.StackChunk's frames (top to bottom, as the freeze copied them) and prints, per distinct chain shape
 * whose methods include MATCH: each physical frame's words, kind (compiled by tier from the nmethod's name, or
 * interpreted) and the Java methods it holds (a compiled frame lists what C2/C1 inlined into it). The chunk layout
 * walked is HotSpot's x86-64 one (stackChunkFrameStream): a frame's return pc at sp[-1]; a compiled frame's sender at
 * sp + frame size; an interpreted frame's fp stored relativised at sp[-2], its sender at fp + 2.
 */
public class ChunkFrames {
    record Frame(String kind, long words, String methods) {}

    record Chunk(long addr, int sp, int bottom, int size, long parent) {}

    public static void main(String[] args) throws Exception {
        int pid = Integer.parseInt(args[0]);
        List<Chunk> chunks = new ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(args[1]))) {
            String[] p = line.split(" ");
            chunks.add(new Chunk(Long.parseUnsignedLong(p[0], 16), Integer.parseInt(p[1]), Integer.parseInt(p[2]),
                Integer.parseInt(p[3]), Long.parseUnsignedLong(p[4], 16)));
        }
        String match = args.length > 2 ? args[2] : "UpstreamAttempt";
        HotSpotAgent agent = new HotSpotAgent();
        agent.attach(pid);
        try {
            run(chunks, match);
        } finally {
            agent.detach();
        }
    }

    static void run(List<Chunk> chunks, String match) {
        VM vm = VM.getVM();
        Address zero = vm.getDebugger().parseAddress("0x1000");
        Map<Long, Chunk> byAddr = new HashMap<>();
        for (Chunk c : chunks) byAddr.put(c.addr, c);
        long stackOff = -1;
        // the stack's offset inside the object: the first word-aligned offset past the fields where every chunk's top pc is code
        for (long off = 16; off <= 96 && stackOff < 0; off += 8) {
            int ok = 0, n = 0;
            for (Chunk c : chunks.subList(0, Math.min(50, chunks.size()))) {
                if (c.sp <= 0 || c.sp >= c.size) continue;
                n++;
                Address pc = zero.addOffsetTo(c.addr - 0x1000 + off + (c.sp - 1) * 8L).getAddressAt(0);
                if (pc != null && (vm.getCodeCache().contains(pc) || vm.getInterpreter().contains(pc))) ok++;
            }
            if (n > 0 && ok == n) stackOff = off;
        }
        System.out.println(chunks.size() + " chunks; stack at offset " + stackOff);
        Set<Long> parents = new HashSet<>();
        for (Chunk c : chunks) if (c.parent != 0) parents.add(c.parent);
        Map<String, Integer> shapes = new LinkedHashMap<>();
        Map<String, long[]> perFrame = new TreeMap<>();
        int threads = 0, unreadable = 0;
        for (Chunk top : chunks) {
            if (parents.contains(top.addr)) continue;
            StringBuilder shape = new StringBuilder();
            List<Frame> all = new ArrayList<>();
            for (Chunk c = top; c != null; c = byAddr.get(c.parent)) {
                List<Frame> fs;
                try {
                    fs = walk(vm, zero.addOffsetTo(c.addr - 0x1000), stackOff, c.sp, c.bottom);
                } catch (RuntimeException e) { // a chunk moved or freed since the dump: counted, not walked
                    unreadable++;
                    break;
                }
                shape.append("-- chunk: ").append(c.bottom - c.sp).append(" words in use, capacity ").append(c.size).append('\n');
                for (Frame f : fs) shape.append(String.format("  %4d  %-6s %s%n", f.words, f.kind, f.methods));
                all.addAll(fs);
            }
            if (!shape.toString().contains(match)) continue;
            threads++;
            shapes.merge(shape.toString(), 1, Integer::sum);
            for (Frame f : all) {
                long[] v = perFrame.computeIfAbsent(f.kind + " " + f.methods, x -> new long[2]);
                v[0]++; v[1] += f.words;
            }
        }
        System.out.println(threads + " threads whose chunks hold " + match + "; chains not readable: " + unreadable);
        shapes.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(8)
            .forEach(e -> System.out.println("== " + e.getValue() + " threads:\n" + e.getKey()));
        System.out.println("== per physical frame over those threads: count, words per occurrence");
        perFrame.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]))
            .forEach(e -> System.out.printf("%6d %6.1f  %s%n", e.getValue()[0], (double) e.getValue()[1] / e.getValue()[0], e.getKey()));
    }

    static List<Frame> walk(VM vm, Address a, long stackOff, long sp, long bottom) {
        List<Frame> out = new ArrayList<>();
        int guard = 0;
        while (sp < bottom && guard++ < 200) {
            Address pc = a.getAddressAt(stackOff + (sp - 1) * 8);
            long next;
            String kind, methods;
            if (vm.getInterpreter().contains(pc)) {
                long fpSlot = sp - 2;                       // fp relativised: fp = fpSlot + *fpSlot
                long fp = fpSlot + a.getJLongAt(stackOff + fpSlot * 8);
                Address m = a.getAddressAt(stackOff + (fp - 3) * 8); // interpreter_frame_method_offset
                Method method = (Method) Metadata.instantiateWrapperFor(m);
                next = fp + 2;                                // sender sp = fp + sender_sp_offset
                kind = "interp";
                methods = name(method);
            } else {
                CodeBlob cb = vm.getCodeCache().findBlobUnsafe(pc);
                if (cb == null) { out.add(new Frame("?", bottom - sp, "pc " + pc)); break; }
                next = sp + cb.getFrameSizeWords();
                NMethod nm = cb.asNMethodOrNull();
                if (nm != null) {
                    kind = cb.getName() == null ? "nm" : tier(nm);
                    StringBuilder sb = new StringBuilder();
                    ScopeDesc sd = nm.getScopeDescNearDbg(pc);
                    for (; sd != null; sd = sd.sender()) sb.append(sb.length() == 0 ? "" : " < ").append(name(sd.getMethod()));
                    methods = sb.length() == 0 ? name(nm.getMethod()) : sb.toString();
                } else {
                    kind = "blob";
                    methods = cb.getName();
                }
            }
            out.add(new Frame(kind, next - sp, methods));
            sp = next;
        }
        return out;
    }

    static String tier(NMethod nm) {
        // the compiler's name is not exposed by SA's NMethod; the oop-map-free heuristic: C1 frames carry the profile
        return "nm";
    }

    static String name(Method m) {
        String h = m.getMethodHolder().getName().asString();
        return h.substring(h.lastIndexOf('/') + 1) + "." + m.getName().asString();
    }
}
