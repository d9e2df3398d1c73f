package commit

import (
	"fmt"
	"strings"

	"simrun/model/workload"
)

// MariaDB binary log event layout (binlog_format=ROW, binlog_row_image=FULL,
// binlog_checksum=CRC32, binlog_annotate_row_events=ON, the defaults):
// every event has a 19-byte common header and a 4-byte CRC32.
const (
	eventHeader   = 19
	eventChecksum = 4
	gtidEvent     = 42 // Gtid_log_event: header + 19-byte body + CRC (no BEGIN event in MariaDB)
	xidEvent      = 31 // Xid_log_event: header + 8-byte xid + CRC
	rowsPostHdr   = 8  // table id (6) + flags (2)
	tableMapBody  = 8 + 1 + 6 + 1 + 1 + 7 + 1 + 1 + 4 + 1 + 4 + 1
	// table map body: table id + flags, db name "sbtest" (length + name +
	// NUL), table name "sbtestN" likewise, column count, 4 column types,
	// metadata length and 2 bytes for each of the two CHAR columns, null
	// bitmap.
)

// EventBytes is the binlog size of each statement kind and of the
// per-transaction events of sysbench's oltp_write_only, derived from the
// event layouts above and the sysbench schema.
type EventBytes struct {
	PerTx   int64                        // GTID + XID events
	PerStmt [workload.NumStmtKinds]int64 // Annotate_rows + Table_map + Rows event
	Row     int64                        // one row image
	SQL     [workload.NumStmtKinds]int64 // length of the statement text in Annotate_rows
}

// RowImage is the size of one sysbench row in a rows event: null bitmap
// (1), id INT (4), k INT (4), c CHAR(120) utf8mb4 (a 2-byte length since its
// maximum, 480 bytes, exceeds 255, then the value), pad CHAR(60) utf8mb4
// (1-byte length, value).
func RowImage(wl workload.Sysbench) int64 {
	return 1 + 4 + 4 + 2 + int64(wl.CValueLen) + 1 + int64(wl.PadValueLen)
}

// Events returns the binlog sizes for a sysbench configuration.
func Events(wl workload.Sysbench) EventBytes {
	row := RowImage(wl)
	id := fmt.Sprint(wl.TableSize / 2)
	tbl := fmt.Sprintf("sbtest%d", (wl.Tables+1)/2)
	c := strings.Repeat("9", wl.CValueLen)
	pad := strings.Repeat("9", wl.PadValueLen)
	sql := [workload.NumStmtKinds]string{
		workload.UpdateIndex:    "UPDATE " + tbl + " SET k=k+1 WHERE id=" + id,
		workload.UpdateNonIndex: "UPDATE " + tbl + " SET c='" + c + "' WHERE id=" + id,
		workload.Delete:         "DELETE FROM " + tbl + " WHERE id=" + id,
		workload.Insert:         "INSERT INTO " + tbl + " (id, k, c, pad) VALUES (" + id + ", " + id + ", '" + c + "', '" + pad + "')",
	}
	var e EventBytes
	e.PerTx = gtidEvent + xidEvent
	e.Row = row
	for k := range sql {
		e.SQL[k] = int64(len(sql[k]))
		annotate := eventHeader + e.SQL[k] + eventChecksum
		tmap := int64(eventHeader + tableMapBody + eventChecksum)
		var rows int64
		switch workload.StmtKind(k) {
		case workload.UpdateIndex, workload.UpdateNonIndex:
			// Update_rows: columns-present bitmaps before and after, and
			// the before and after images.
			rows = eventHeader + rowsPostHdr + 3 + 2*row + eventChecksum
		default:
			rows = eventHeader + rowsPostHdr + 1 + 1 + row + eventChecksum
		}
		e.PerStmt[k] = annotate + tmap + rows
	}
	return e
}

// TxBytes returns the binlog size of a transaction.
func (e EventBytes) TxBytes(tx *workload.Tx) int64 {
	n := e.PerTx
	for _, s := range tx.Stmts {
		n += e.PerStmt[s.Kind]
	}
	return n
}
