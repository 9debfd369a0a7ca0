import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

// Reads "format<TAB>arg<TAB>arg..." lines (arg: n = null, i:<long>, d:<double>,
// s:<text>, b:<boolean>; \t, \n and \\ escaped in texts) and prints for each
// "OK<TAB>result" (escaped the same way) or "ERR<TAB>exception class", as
// String.format(Locale.US, format, args) gives it. A whole number that fits
// an int is passed as an Integer (Spark's INT columns and literals), else as
// a Long.
public class Format {
  static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        b.append(n == 't' ? '\t' : n == 'n' ? '\n' : n);
      } else b.append(c);
    }
    return b.toString();
  }
  static String escape(String s) { return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n"); }
  public static void main(String[] a) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.split("\t", -1);
      Object[] args = new Object[f.length - 1];
      for (int i = 1; i < f.length; i++) {
        String v = f[i];
        if (v.equals("n")) args[i - 1] = null;
        else if (v.startsWith("i:")) { long l = Long.parseLong(v.substring(2)); args[i - 1] = (l == (int) l) ? (Object) Integer.valueOf((int) l) : (Object) Long.valueOf(l); }
        else if (v.startsWith("d:")) args[i - 1] = Double.parseDouble(v.substring(2));
        else if (v.startsWith("b:")) args[i - 1] = Boolean.parseBoolean(v.substring(2));
        else args[i - 1] = unescape(v.substring(2));
      }
      try {
        out.println("OK\t" + escape(String.format(Locale.US, unescape(f[0]), args)));
      } catch (Exception e) {
        out.println("ERR\t" + e.getClass().getSimpleName());
      }
    }
    out.flush();
  }
}
