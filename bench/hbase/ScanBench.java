import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;

/**
 * The Java peer of bench/hbase: one single-threaded scan of the whole
 * occurrence table with the stock client, caching 1000 and cacheBlocks off,
 * optionally with the same server-side filter the Go backend pushes down for
 * COUNTRY = value: SingleColumnValueFilter on the header cell (family h),
 * comparing the 4-byte FNV-1a hash of the country code at offset 1, with the
 * record family loaded on demand. Prints one line: mode rows seconds rows/s
 * bytes. Each scan runs -Drepeat=N times (default 3) in one JVM; the fastest
 * run is reported.
 *
 * Usage: ScanBench ZK_QUORUM ZK_PORT TABLE [COUNTRY]
 */
public class ScanBench {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", args[0]);
    conf.set("hbase.zookeeper.property.clientPort", args[1]);
    byte[] rec = "r".getBytes(StandardCharsets.UTF_8);
    byte[] hdr = "h".getBytes(StandardCharsets.UTF_8);
    Scan scan = new Scan();
    scan.setCaching(1000);
    scan.setCacheBlocks(false);
    // Occurrence rows are salt buckets 0x00..0xfe; 0xff holds dataset state.
    scan.withStopRow(new byte[] { (byte) 0xff });
    String mode = "full";
    if (args.length > 3) {
      mode = "filter:" + args[3];
      SingleColumnValueFilter f = new SingleColumnValueFilter(hdr, new byte[0], CompareOperator.EQUAL,
        new BinaryComponentComparator(fnv1a32(args[3]), 1));
      f.setFilterIfMissing(true);
      scan.setFilter(f);
      scan.addFamily(hdr);
      scan.addFamily(rec);
      scan.setLoadColumnFamiliesOnDemand(true);
    } else {
      scan.addFamily(rec);
    }
    try (Connection conn = ConnectionFactory.createConnection(conf);
      Table table = conn.getTable(TableName.valueOf(args[2]))) {
      int repeat = Integer.parseInt(System.getProperty("repeat", "3"));
      double best = 0;
      long rows = 0, bytes = 0;
      for (int i = 0; i < repeat; i++) {
        rows = 0;
        bytes = 0;
        long start = System.nanoTime();
        try (ResultScanner rs = table.getScanner(scan)) {
          for (Result r : rs) {
            Cell c = r.getColumnLatestCell(rec, new byte[0]);
            if (c != null) {
              bytes += c.getValueLength();
            }
            rows++;
          }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        if (best == 0 || secs < best) {
          best = secs;
        }
      }
      System.out.printf("java %-22s rows=%d best-of-%d seconds=%.2f rows/s=%.0f recordbytes=%d%n", mode,
        rows, repeat, best, rows / best, bytes);
    }
  }

  /** FNV-1a 32-bit hash, big-endian, never 0 (the Go header's string hash). */
  static byte[] fnv1a32(String s) {
    int h = 0x811c9dc5;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff);
      h *= 0x01000193;
    }
    if (h == 0) {
      h = 1;
    }
    return new byte[] { (byte) (h >>> 24), (byte) (h >>> 16), (byte) (h >>> 8), (byte) h };
  }
}
