// Command downloader ingests, counts and exports occurrence data and serves
// GBIF-compatible download jobs.
package main

func main() {}
