import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The engine's Java compile step in one JVM: javac (in process) over the main source, with the
 * working directory as source path so that the classes it uses (support files, a student's
 * other classes) are compiled with it, then one jar holding every class, its Main-Class the
 * main source's name, as Jobe's Java runs name it. The engine caches one file per program;
 * the run step is "java -jar prog". When the main source's class has no main method (a
 * student's class that an instructor's Main.java, a support file given with the problem and
 * named among the options, calls), the Main-Class is the first class, by name, that has one.
 *
 * Usage: PrutorJavac OUT_JAR MAIN_SOURCE [javac option or source...]
 */
public final class PrutorJavac {
    private PrutorJavac() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || !args[1].endsWith(".java")) {
            System.err.println("usage: PrutorJavac OUT_JAR MAIN_SOURCE.java [javac option or source...]");
            System.exit(2);
        }
        Path jar = Path.of(args[0]);
        String source = args[1];
        String mainClass = Path.of(source).getFileName().toString().replaceFirst("\\.java$", "");
        Path classes = Files.createTempDirectory("classes");
        List<String> javac = new ArrayList<>(Arrays.asList(args).subList(2, args.length));
        javac.addAll(List.of("-encoding", "UTF-8", "-sourcepath", ".", "-d", classes.toString(), source));
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int rc = compiler.run(null, System.out, System.err, javac.toArray(new String[0]));
        if (rc != 0) {
            System.exit(1);
        }
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, withMain(classes, mainClass));
        writeJar(jar, manifest, classes);
    }

    /**
     * The class to start: the main source's if it has a main method, else the first top-level
     * class by name that has one (classes are loaded, never initialised: no code of theirs runs).
     */
    private static String withMain(Path classes, String preferred) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(p -> p.toString().endsWith(".class") && !p.getFileName().toString().contains("$")).sorted()
                .forEach(p -> names.add(classes.relativize(p).toString().replaceAll("\\.class$", "").replace('/', '.')));
        }
        names.remove(preferred);
        names.add(0, preferred);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()})) {
            for (String name : names) {
                try {
                    Method m = Class.forName(name, false, loader).getMethod("main", String[].class);
                    if (Modifier.isStatic(m.getModifiers())) {
                        return name;
                    }
                } catch (ReflectiveOperationException | LinkageError e) {
                    // not a class with a main method: the next one
                }
            }
        }
        return preferred;
    }

    private static void writeJar(Path jar, Manifest manifest, Path classes) throws IOException {
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jo = new JarOutputStream(out, manifest);
             Stream<Path> walk = Files.walk(classes)) {
            for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile).sorted()::iterator) {
                jo.putNextEntry(new JarEntry(classes.relativize(p).toString().replace('\\', '/')));
                Files.copy(p, jo);
                jo.closeEntry();
            }
        }
    }
}
