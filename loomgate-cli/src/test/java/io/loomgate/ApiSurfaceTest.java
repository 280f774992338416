package io.loomgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The API a plugin or an embedding may use is exactly the types the table "The public API" of docs/extending.md
 * names (the convention is written there and in docs/architecture.md): every other type, public or not, is internal
 * to Loomgate and may change. Java cannot export single types of a package (a module exports whole packages, and the
 * API packages hold internal public types too), so the rule is checked here, from three sides:
 * <ul>
 *   <li>every type the table names exists and is public;</li>
 *   <li>an API type's public and protected signatures (members, supertypes, type arguments, exceptions) name no
 *       Loomgate type outside the API, so using the API never needs an internal type;</li>
 *   <li>the example module (examples/embedded-gateway), the model of an embedding and a plugin, imports nothing of
 *       Loomgate's outside the API.</li>
 * </ul>
 * Runs in loomgate-cli, whose test class path holds the core, the embedding API ({@code io.loomgate.Loomgate}) and
 * the optional modules.
 */
class ApiSurfaceTest {
    /** Runs with loomgate-cli as its working directory. */
    private static final Path ROOT = Path.of("..");
    private static final Path EXTENDING = ROOT.resolve("docs/extending.md");
    private static final Path EXAMPLE = ROOT.resolve("examples/embedded-gateway/src/main/java");
    private static final Pattern CODE = Pattern.compile("`([A-Za-z0-9_.]+)`");
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?(io\\.loomgate\\.[\\w.]+?)"
            + "(?:\\.\\*)?;", Pattern.MULTILINE);

    @Test
    void theTableNamesPublicTypes() throws IOException {
        Set<Class<?>> api = apiTypes(Files.readString(EXTENDING));
        assertThat(api).as("the API table of " + EXTENDING).hasSizeGreaterThanOrEqualTo(10);
        for (Class<?> type : api) {
            assertThat(Modifier.isPublic(type.getModifiers())).as(type.getName() + " is public").isTrue();
        }
    }

    @Test
    void apiSignaturesNameOnlyApiTypes() throws IOException {
        Set<Class<?>> api = apiTypes(Files.readString(EXTENDING));
        assertThat(leaks(api)).as("Loomgate types outside the API (docs/extending.md) in the API's signatures: "
                + "add them to the table, or keep them out of the signature").isEmpty();
    }

    @Test
    void theExampleModuleUsesOnlyTheApi() throws IOException {
        Set<Class<?>> api = apiTypes(Files.readString(EXTENDING));
        Set<String> names = new TreeSet<>();
        api.forEach(c -> names.add(c.getName().replace('$', '.')));
        List<String> outside = new ArrayList<>();
        try (Stream<Path> files = Files.walk(EXAMPLE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(file));
                while (m.find()) {
                    String imported = m.group(1);
                    if (names.stream().noneMatch(n -> imported.equals(n) || imported.startsWith(n + "."))) {
                        outside.add(ROOT.relativize(file) + ": " + imported);
                    }
                }
            }
        }
        assertThat(outside).as("imports of Loomgate types outside the API (docs/extending.md)").isEmpty();
    }

    /**
     * The package plugins build on ({@code io.loomgate.extension}) holds the API and the few internal helpers its
     * API types and the built-ins share, named here with why; nothing else. Session 58 moved
     * {@code KeptAcrossReloads} out of it (to {@code io.loomgate.reload}): a plugin cannot use it rightly (keeping is
     * right only at the gateway's swap, which a plugin is not told of), and docs/extending.md says how a plugin keeps
     * state of its own across reloads.
     */
    @Test
    void thePluginPackageHoldsNoOtherInternalType() throws IOException {
        Set<String> api = new TreeSet<>();
        apiTypes(Files.readString(EXTENDING)).forEach(c -> api.add(c.getSimpleName()));
        Set<String> internal = Set.of(
                "ExtensionRegistry", // FilterRegistry's and PredicateRegistry's base: the embedding registers on them
                "ArgumentException", // what ExtensionArgs throws (an IllegalArgumentException naming the argument)
                "Durations", "StatusCodes"); // the value grammar ExtensionArgs reads with
        List<String> other = new ArrayList<>();
        try (Stream<Path> files = Files.list(ROOT.resolve("loomgate-core/src/main/java/io/loomgate/extension"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String type = f.getFileName().toString().replace(".java", "");
                if (!type.equals("package-info") && !api.contains(type) && !internal.contains(type)) {
                    other.add(type);
                }
            }
        }
        assertThat(other).as("types in io.loomgate.extension that are neither API (docs/extending.md) nor named "
                + "here; internal helpers belong in an internal package").isEmpty();
    }

    /** The check itself finds a leak: a table without {@code Headers} leaves RequestHead's signatures leaking it. */
    @Test
    void aTypeMissingFromTheTableIsALeak() throws IOException {
        String table = Files.readString(EXTENDING).replace("`Headers`", "");
        assertThat(leaks(apiTypes(table))).anyMatch(l -> l.contains("io.loomgate.http.Headers"));
        assertThatThrownBy(() -> apiTypes(table.replace("`io.loomgate.filter.FilterChain`",
                "`io.loomgate.filter.NoSuchChain`"))).hasMessageContaining("io.loomgate.filter.NoSuchChain");
    }

    /**
     * The types of the table's first column: a qualified name sets the package for the names after it in its row
     * ({@code io.loomgate.http.RequestHead}, {@code ResponseHead}); {@code Outer.Inner} is a nested type.
     */
    static Set<Class<?>> apiTypes(String extendingMd) {
        int start = extendingMd.indexOf("## The public API");
        assertThat(start).as("docs/extending.md has a section '## The public API'").isNotNegative();
        int end = extendingMd.indexOf("\n## ", start + 1);
        Set<Class<?>> types = new LinkedHashSet<>();
        for (String line : extendingMd.substring(start, end < 0 ? extendingMd.length() : end).lines().toList()) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String firstCell = line.split("\\|")[1];
            String pkg = null;
            Matcher m = CODE.matcher(firstCell);
            while (m.find()) {
                String name = m.group(1);
                String qualified;
                if (name.startsWith("io.loomgate.")) {
                    int firstUpper = firstUpperSegment(name);
                    pkg = name.substring(0, firstUpper - 1);
                    qualified = pkg + "." + name.substring(firstUpper).replace('.', '$');
                } else {
                    assertThat(pkg).as("'" + name + "' in " + line + " follows a qualified name").isNotNull();
                    qualified = pkg + "." + name.replace('.', '$');
                }
                try {
                    types.add(Class.forName(qualified, false, ApiSurfaceTest.class.getClassLoader()));
                } catch (ClassNotFoundException e) {
                    throw new AssertionError("docs/extending.md names " + qualified.replace('$', '.')
                            + ", which does not exist", e);
                }
            }
        }
        return types;
    }

    private static int firstUpperSegment(String name) {
        int at = 0;
        for (String segment : name.split("\\.")) {
            if (Character.isUpperCase(segment.charAt(0))) {
                return at;
            }
            at += segment.length() + 1;
        }
        throw new AssertionError("no type name in " + name);
    }

    /** Loomgate types outside {@code api} named by the public or protected signatures of {@code api}'s types. */
    static Set<String> leaks(Set<Class<?>> api) {
        Set<String> out = new TreeSet<>();
        for (Class<?> type : api) {
            List<Type> named = new ArrayList<>();
            named.add(type.getGenericSuperclass());
            named.addAll(List.of(type.getGenericInterfaces()));
            List<Member> members = new ArrayList<>();
            members.addAll(List.of(type.getDeclaredMethods()));
            members.addAll(List.of(type.getDeclaredConstructors()));
            members.addAll(List.of(type.getDeclaredFields()));
            for (Member member : members) {
                int mod = member.getModifiers();
                if (member.isSynthetic() || !(Modifier.isPublic(mod) || Modifier.isProtected(mod))) {
                    continue;
                }
                List<Type> signature = new ArrayList<>();
                if (member instanceof Executable e) {
                    signature.addAll(List.of(e.getGenericParameterTypes()));
                    signature.addAll(List.of(e.getGenericExceptionTypes()));
                    if (e instanceof Method method) {
                        signature.add(method.getGenericReturnType());
                    }
                } else if (member instanceof Field f) {
                    signature.add(f.getGenericType());
                }
                for (Type t : signature) {
                    for (Class<?> c : classesIn(t)) {
                        if (isInternal(c, api)) {
                            out.add(type.getName() + "." + member.getName() + " (" + kind(member) + ") names "
                                    + c.getName());
                        }
                    }
                }
            }
            for (Type t : named) {
                for (Class<?> c : classesIn(t)) {
                    if (isInternal(c, api)) {
                        out.add(type.getName() + " extends or implements " + c.getName());
                    }
                }
            }
        }
        return out;
    }

    private static String kind(Member m) {
        return m instanceof Constructor<?> ? "constructor" : m instanceof Field ? "field" : "method";
    }

    private static boolean isInternal(Class<?> c, Set<Class<?>> api) {
        while (c.isArray()) {
            c = c.getComponentType();
        }
        if (!c.getName().startsWith("io.loomgate.")) {
            return false;
        }
        // A nested type of an API type is reached through it: part of the API with it.
        for (Class<?> outer = c; outer != null; outer = outer.getDeclaringClass()) {
            if (api.contains(outer)) {
                return false;
            }
        }
        return true;
    }

    private static List<Class<?>> classesIn(Type t) {
        List<Class<?>> out = new ArrayList<>();
        collect(t, out, new LinkedHashSet<>());
        return out;
    }

    private static void collect(Type t, List<Class<?>> out, Set<Type> seen) {
        if (t == null || !seen.add(t)) {
            return;
        }
        switch (t) {
            case Class<?> c -> out.add(c);
            case ParameterizedType p -> {
                collect(p.getRawType(), out, seen);
                for (Type a : p.getActualTypeArguments()) {
                    collect(a, out, seen);
                }
            }
            case GenericArrayType g -> collect(g.getGenericComponentType(), out, seen);
            case WildcardType w -> {
                for (Type b : w.getUpperBounds()) {
                    collect(b, out, seen);
                }
                for (Type b : w.getLowerBounds()) {
                    collect(b, out, seen);
                }
            }
            case TypeVariable<?> v -> {
                for (Type b : v.getBounds()) {
                    collect(b, out, seen);
                }
            }
            default -> { }
        }
    }
}
