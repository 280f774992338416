package io.loomgate.testkit;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * What the JIT sees of a class's methods, read from its class file: each method's bytecode length (what C2's inline
 * limits compare) and the backward branches in it (each a loop whose iterations the JIT counts in that method). For
 * tests that pin a method's shape for the compiler; overloads are merged (the largest length, the most branches).
 */
public final class ClassFileMethods {
    /** One method's code: its length in bytes and the branches in it that jump backwards. */
    public record Code(int length, int backwardBranches) {
    }

    private ClassFileMethods() {
    }

    /** The methods of {@code className} (binary name, e.g. {@code a.b.Outer$Inner}) by name. */
    public static Map<String, Code> of(String className) {
        String resource = "/" + className.replace('.', '/') + ".class";
        try (InputStream raw = ClassFileMethods.class.getResourceAsStream(resource)) {
            if (raw == null) {
                throw new IllegalArgumentException("no class file " + resource);
            }
            return read(new DataInputStream(raw), resource);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Code> read(DataInputStream in, String resource) throws IOException {
        in.readInt(); // magic
        in.readInt(); // minor, major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7, 8, 16, 19, 20 -> skip(in, 2);
                case 15 -> skip(in, 3);
                case 3, 4, 9, 10, 11, 12, 17, 18 -> skip(in, 4);
                case 5, 6 -> {
                    skip(in, 8);
                    i++; // a long or double takes two entries
                }
                default -> throw new IOException("constant pool tag " + tag + " in " + resource);
            }
        }
        skip(in, 6); // access, this, super
        skip(in, 2 * in.readUnsignedShort()); // interfaces
        int fields = in.readUnsignedShort();
        for (int f = 0; f < fields; f++) {
            skip(in, 6);
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                skip(in, 2);
                skip(in, in.readInt());
            }
        }
        Map<String, Code> methods = new HashMap<>();
        int methodCount = in.readUnsignedShort();
        for (int m = 0; m < methodCount; m++) {
            skip(in, 2);
            String name = utf8[in.readUnsignedShort()];
            skip(in, 2);
            int attributes = in.readUnsignedShort();
            for (int a = 0; a < attributes; a++) {
                String attribute = utf8[in.readUnsignedShort()];
                int length = in.readInt();
                if (attribute.equals("Code")) {
                    skip(in, 4); // max_stack, max_locals
                    byte[] code = new byte[in.readInt()];
                    in.readFully(code);
                    skip(in, length - 8 - code.length);
                    Code c = new Code(code.length, backwardBranches(code));
                    methods.merge(name, c, (x, y) -> new Code(Math.max(x.length, y.length),
                            Math.max(x.backwardBranches, y.backwardBranches)));
                } else {
                    skip(in, length);
                }
            }
        }
        return methods;
    }

    /** Walks the instructions (JVMS §6.5) and counts the branches whose offset is negative. */
    private static int backwardBranches(byte[] code) {
        int backward = 0;
        int pc = 0;
        while (pc < code.length) {
            int op = code[pc] & 0xff;
            if (op >= 0x99 && op <= 0xa8 || op == 0xc6 || op == 0xc7) { // if<cond>, if_<cmp>, goto, jsr, ifnull
                backward += (short) (((code[pc + 1] & 0xff) << 8) | (code[pc + 2] & 0xff)) < 0 ? 1 : 0;
                pc += 3;
            } else if (op == 0xc8 || op == 0xc9) { // goto_w, jsr_w
                backward += readInt(code, pc + 1) < 0 ? 1 : 0;
                pc += 5;
            } else if (op == 0xaa) { // tableswitch: forward only in javac's output, but sized here
                int p = (pc + 4) & ~3;
                int low = readInt(code, p + 4);
                int high = readInt(code, p + 8);
                pc = p + 12 + 4 * (high - low + 1);
            } else if (op == 0xab) { // lookupswitch
                int p = (pc + 4) & ~3;
                pc = p + 8 + 8 * readInt(code, p + 4);
            } else if (op == 0xc4) { // wide
                pc += (code[pc + 1] & 0xff) == 0x84 ? 6 : 4;
            } else {
                pc += length(op);
            }
        }
        return backward;
    }

    /** The length of an instruction of fixed size, opcode included. */
    private static int length(int op) {
        if (op == 0x10 || op == 0x12 || op >= 0x15 && op <= 0x19 || op >= 0x36 && op <= 0x3a || op == 0xa9
                || op == 0xbc) {
            return 2; // bipush, ldc, <t>load, <t>store, ret, newarray
        }
        if (op == 0x11 || op == 0x13 || op == 0x14 || op == 0x84 || op >= 0xb2 && op <= 0xb8 || op == 0xbb
                || op == 0xbd || op == 0xc0 || op == 0xc1) {
            return 3; // sipush, ldc_w, ldc2_w, iinc, field and invoke*, new, anewarray, checkcast, instanceof
        }
        if (op == 0xc5) {
            return 4; // multianewarray
        }
        if (op == 0xb9 || op == 0xba) {
            return 5; // invokeinterface, invokedynamic
        }
        return 1;
    }

    /** DataInputStream.skipBytes may skip fewer (a class inside a jar is an inflating stream): read them instead. */
    private static void skip(DataInputStream in, int n) throws IOException {
        if (in.readNBytes(n).length != n) {
            throw new IOException("class file ends early");
        }
    }

    private static int readInt(byte[] code, int at) {
        return ((code[at] & 0xff) << 24) | ((code[at + 1] & 0xff) << 16) | ((code[at + 2] & 0xff) << 8)
                | (code[at + 3] & 0xff);
    }
}
