package hrpc

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel kinds of failure. A *RemoteError (an exception raised by an HBase
// server) matches the sentinel of its Java exception class with errors.Is.
var (
	// ErrNotServingRegion: the server does not (or no longer) host the region
	// (NotServingRegionException, RegionOpeningException). Relocate and retry.
	ErrNotServingRegion = errors.New("hbase: region not served by this server")
	// ErrRegionMoved: the region moved to another server (RegionMovedException).
	ErrRegionMoved = errors.New("hbase: region moved")
	// ErrServerStopped: the region server is stopping or aborted.
	ErrServerStopped = errors.New("hbase: region server stopped")
	// ErrUnknownScanner: the server forgot the scanner (lease expired, reset
	// after an error, out-of-order call). Reopen from the last returned row.
	ErrUnknownScanner = errors.New("hbase: unknown scanner")
	// ErrRegionTooBusy: the region refuses writes for a while (memstore full).
	ErrRegionTooBusy = errors.New("hbase: region too busy")
	// ErrServerBusy: the server is starting, overloaded or asks to hold on.
	ErrServerBusy = errors.New("hbase: server busy")
	// ErrTableNotFound: no such table.
	ErrTableNotFound = errors.New("hbase: table not found")
	// ErrTableExists: the table to create exists already.
	ErrTableExists = errors.New("hbase: table exists")
	// ErrTableNotDisabled: the table must be disabled first.
	ErrTableNotDisabled = errors.New("hbase: table not disabled")
	// ErrTableNotEnabled: the table is disabled.
	ErrTableNotEnabled = errors.New("hbase: table not enabled")
	// ErrNoSuchColumnFamily: a request named a family the table lacks.
	ErrNoSuchColumnFamily = errors.New("hbase: no such column family")
	// ErrConnection: the connection to a server failed or closed.
	ErrConnection = errors.New("hbase: connection failed")
	// ErrRegionsInTransition: hbase:meta does not describe the table's key
	// space completely right now (a split or move is under way).
	ErrRegionsInTransition = errors.New("hbase: regions in transition")
	// ErrProtocol: the server sent something this client cannot decode.
	ErrProtocol = errors.New("hbase: protocol error")
	// ErrRemote: any other server exception.
	ErrRemote = errors.New("hbase: server exception")
)

// exceptionKinds maps Java exception class names to sentinels.
var exceptionKinds = map[string]error{
	"org.apache.hadoop.hbase.NotServingRegionException":                 ErrNotServingRegion,
	"org.apache.hadoop.hbase.exceptions.RegionOpeningException":         ErrNotServingRegion,
	"org.apache.hadoop.hbase.regionserver.RegionServerAbortedException": ErrServerStopped,
	"org.apache.hadoop.hbase.exceptions.RegionMovedException":           ErrRegionMoved,
	"org.apache.hadoop.hbase.regionserver.RegionServerStoppedException": ErrServerStopped,
	"org.apache.hadoop.hbase.UnknownScannerException":                   ErrUnknownScanner,
	"org.apache.hadoop.hbase.exceptions.ScannerResetException":          ErrUnknownScanner,
	"org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException": ErrUnknownScanner,
	"org.apache.hadoop.hbase.regionserver.LeaseException":               ErrUnknownScanner,
	"org.apache.hadoop.hbase.RegionTooBusyException":                    ErrRegionTooBusy,
	"org.apache.hadoop.hbase.ipc.ServerNotRunningYetException":          ErrServerBusy,
	"org.apache.hadoop.hbase.ipc.ServerTooBusyException":                ErrServerBusy,
	"org.apache.hadoop.hbase.CallQueueTooBigException":                  ErrServerBusy,
	"org.apache.hadoop.hbase.CallDroppedException":                      ErrServerBusy,
	"org.apache.hadoop.hbase.PleaseHoldException":                       ErrServerBusy,
	"org.apache.hadoop.hbase.MultiActionResultTooLarge":                 ErrServerBusy,
	"org.apache.hadoop.hbase.RetryImmediatelyException":                 ErrServerBusy,
	"org.apache.hadoop.hbase.quotas.RpcThrottlingException":             ErrServerBusy,
	"org.apache.hadoop.hbase.TableNotFoundException":                    ErrTableNotFound,
	"org.apache.hadoop.hbase.TableExistsException":                      ErrTableExists,
	"org.apache.hadoop.hbase.TableNotDisabledException":                 ErrTableNotDisabled,
	"org.apache.hadoop.hbase.TableNotEnabledException":                  ErrTableNotEnabled,
	"org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException":  ErrNoSuchColumnFamily,
}

// RemoteError is an exception an HBase server raised for a call.
type RemoteError struct {
	Class      string // Java exception class name
	Message    string // first line of the server's stack trace
	Server     string // server that raised it (host:port)
	DoNotRetry bool
	kind       error
}

func (e *RemoteError) Error() string {
	short := e.Class
	if i := strings.LastIndexByte(short, '.'); i >= 0 {
		short = short[i+1:]
	}
	msg := e.Message
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	if e.Server != "" {
		return fmt.Sprintf("%s from %s: %s", short, e.Server, msg)
	}
	return fmt.Sprintf("%s: %s", short, msg)
}

// Unwrap returns the sentinel kind of the exception.
func (e *RemoteError) Unwrap() error { return e.kind }

// Is makes a RegionMovedException also match ErrNotServingRegion, as it
// does in Java.
func (e *RemoteError) Is(target error) bool {
	return target == ErrNotServingRegion && e.kind == ErrRegionMoved
}

func newRemoteError(class, stack, server string, doNotRetry bool) *RemoteError {
	kind, ok := exceptionKinds[class]
	if !ok {
		kind = ErrRemote
	}
	msg := stack
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	msg = strings.TrimPrefix(msg, class+": ")
	return &RemoteError{Class: class, Message: msg, Server: server, DoNotRetry: doNotRetry, kind: kind}
}

// regionStale reports whether err means the cached location of a region is
// wrong and must be looked up again.
func regionStale(err error) bool {
	return errors.Is(err, ErrNotServingRegion) || errors.Is(err, ErrRegionMoved) ||
		errors.Is(err, ErrServerStopped) || errors.Is(err, ErrConnection) ||
		errors.Is(err, ErrRegionsInTransition)
}

// Retryable reports whether an operation that failed with err may succeed
// when retried (after relocating its region).
func Retryable(err error) bool {
	return regionStale(err) || errors.Is(err, ErrUnknownScanner) ||
		errors.Is(err, ErrRegionTooBusy) || errors.Is(err, ErrServerBusy)
}
