// Reads an Avro object container file with Apache Avro's Java library (the
// one Spark and Hive read Avro with) for TestReadersSimpleAvroJava: prints
// the record's full name and codec, then each record as Avro's own JSON
// rendering, one a line.
//
//   java -cp AVRO_CLASSPATH AvroRead.java FILE
import java.io.File;

import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

public class AvroRead {
  public static void main(String[] args) throws Exception {
    try (DataFileReader<GenericRecord> r = new DataFileReader<>(new File(args[0]), new GenericDatumReader<>())) {
      System.out.println(r.getSchema().getFullName() + "\t" + r.getMetaString("avro.codec"));
      for (GenericRecord rec : r) {
        System.out.println(rec);
      }
    }
  }
}
