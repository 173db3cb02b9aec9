import java.util.ArrayList;
import java.util.List;
import java.util.Scanner;

/** What a typical exam answer uses: compiled once at install to record javac's classes (javac.jsa). */
public class Sample {
    interface Shape {
        double area();
    }

    record Square(double side) implements Shape {
        public double area() {
            return side * side;
        }
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        List<Shape> shapes = new ArrayList<>();
        while (in.hasNextDouble()) {
            shapes.add(new Square(in.nextDouble()));
        }
        double total = shapes.stream().mapToDouble(Shape::area).sum();
        System.out.printf("%d shapes, %.2f%n", shapes.size(), total);
    }
}
