# Reads a download the way rgbif's occ_download_import does (rgbif 3.8.5,
# R/occ_download_import.R): R's own unzip, then occurrence.txt (a DWCA) or
# the one .csv (SIMPLE_CSV) through data.table::fread with quote = "",
# encoding UTF-8, a data.frame, fill off, and an NA countryCode (Namibia)
# put back to "NA". ENTRY names another entry to read the same way.
#
# Usage: Rscript occ_download_import.R ZIP KEY OUT [ENTRY]
# Prints "rows N cols M warnings K" and each warning fread gave; writes to
# OUT the class of each column (one tab-separated line), then the data
# frame as fwrite gives it back (tab-separated, NA as <NA>, times in ISO
# 8601 UTC), for the test to compare cell by cell with what was written.
args <- commandArgs(trailingOnly = TRUE)
zip <- args[1]
key <- args[2]
out <- args[3]
dir <- file.path(tempdir(), "gbifdownload", key)
utils::unzip(zip, exdir = dir, overwrite = TRUE)
if (length(args) >= 4) {
  entry <- args[4]
} else {
  files <- list.files(dir)
  entry <- if (any(grepl("occurrence.txt", files))) "occurrence.txt" else grep("\\.csv", files, value = TRUE)
}
warned <- character()
df <- withCallingHandlers(
  data.table::fread(file.path(dir, entry), data.table = FALSE, fill = FALSE,
                    encoding = "UTF-8", quote = ""),
  warning = function(w) {
    warned <<- c(warned, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
if (!is.null(df$countryCode)) df$countryCode[is.na(df$countryCode)] <- "NA"
cat("rows", nrow(df), "cols", ncol(df), "warnings", length(warned), "\n")
for (w in warned) cat("warning:", w, "\n")
classes <- vapply(df, function(col) class(col)[1], "")
writeLines(paste(classes, collapse = "\t"), out)
data.table::fwrite(df, out, append = TRUE, col.names = TRUE, sep = "\t",
                   quote = FALSE, na = "<NA>", dateTimeAs = "ISO")
