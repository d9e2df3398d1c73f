package bulkload

import (
	"errors"
	"fmt"
	"time"

	"simrun/model/commit"
	"simrun/model/engine"
	"simrun/sim"
)

// Load methods.
const (
	MethodDump     = "dump"      // mysqldump extended INSERTs, each its own autocommit transaction
	MethodLoadData = "load_data" // LOAD DATA INFILE: the whole file in one transaction
	MethodCSVAlter = "csv_alter" // INSERTs into a CSV table, then ALTER TABLE ... ENGINE=InnoDB
)

// Server is the database server's configuration a load runs on: the
// engine and the commit path (the scenario's [engine] and [commit]).
type Server struct {
	Engine engine.Config
	Commit commit.Config
}

// Config is [workload.bulkload]: the dump, the table and how it is loaded,
// plus the MySQL 5.1 settings the engine section does not have.
type Config struct {
	Method           string    `toml:"method" enum:"dump|load_data|csv_alter" doc:"how the table is loaded: dump (the mysqldump file: extended INSERTs, each its own autocommit transaction), load_data (LOAD DATA INFILE, one transaction) or csv_alter (the INSERTs into a CSV table, then one ALTER TABLE ... ENGINE=InnoDB)"`
	Rows             int64     `toml:"rows" unit:"rows" doc:"rows in the dump; not stated by the study (estimate 3-6 M for jawiki categorylinks of 2009-2010, bulkload-notes §2). Calibrated: 4,400,000 fits steps 1-3 best (docs/validation.md, with the leave-one-out check)"`
	SQLRowBytes      int       `toml:"sql_row_bytes" unit:"bytes" doc:"SQL text per row of an extended INSERT, e.g. (1234567,'カテゴリ名','ソートキー',20090101123456), ; assumption: 100 (80-120 B estimate, bulkload-notes §2)"`
	StatementBytes   sim.Bytes `toml:"statement_bytes" unit:"bytes" doc:"largest extended INSERT: mysqldump starts a new one before net_buffer_length = 1,047,551 B"`
	CSVRowBytes      int       `toml:"csv_row_bytes" unit:"bytes" doc:"bytes of a row in the CSV engine's .CSV file (quoted fields, commas, newline); assumption: 85"`
	CategoryBytes    int       `toml:"category_bytes" unit:"bytes" doc:"average cl_to (category name) length in UTF-8; assumption: 30 (bulkload-notes §2)"`
	SortkeyBytes     int       `toml:"sortkey_bytes" unit:"bytes" doc:"average cl_sortkey length; assumption: 30 (bulkload-notes §2)"`
	Categories       int       `toml:"categories" unit:"categories" doc:"distinct cl_to values; assumption: 50,000 (about 39,000 in June 2007, bulkload-notes §2)"`
	Popularity       float64   `toml:"popularity" unit:"" doc:"Zipf exponent of category popularity (share of rows of the k-th most popular category ∝ 1/k^s); assumption: 1.0; 0 = uniform"`
	TimestampSpread  float64   `toml:"timestamp_spread" unit:"fraction" doc:"fraction of rows whose cl_timestamp is later than their page's creation (a category added by a later edit), uniform between the two; the rest carry the creation time, which grows with cl_from. Assumption: 0.2"`
	Months           int       `toml:"months" unit:"months" doc:"months the timestamps span (the partitions of RANGE partitioning by month); assumption: 90 (2003 to mid-2010)"`
	Partitioning     string    `toml:"partitioning" enum:"none|month" doc:"none, or RANGE partitioning by month of cl_timestamp: one clustered and two secondary indexes per partition. The unique key must then contain cl_timestamp; the model extends it to (cl_from, cl_to, cl_timestamp), which keeps rows in clustered order within each partition"`
	RowFormat        string    `toml:"row_format" enum:"compact|compressed" doc:"ROW_FORMAT: compact (the 5.1 default) or compressed (Barracuda with innodb_file_per_table; zlib-compressed pages of key_block_size)"`
	KeyBlockSize     sim.Bytes `toml:"key_block_size" unit:"bytes" doc:"compressed: KEY_BLOCK_SIZE, the on-disk page (1, 2, 4, 8 or 16 KiB; ROW_FORMAT=COMPRESSED alone means 8 KiB)"`
	CompressionRatio float64   `toml:"compression_ratio" unit:"" doc:"compressed: bytes of records / bytes of their zlib stream; assumption 2.0 (the plugin's row-format test: 2.3 GB compact, 1.2 GB at 8 KB; Percona 2008: 2.6 with 9 indexes)"`
	AlterCommitRows  int       `toml:"alter_commit_rows" unit:"rows" doc:"csv_alter: ALTER TABLE commits every N copied rows; ha_innodb.cc write_row() says 10,000 (the study says 1,000)"`

	LogFileSize       sim.Bytes `toml:"innodb_log_file_size" unit:"bytes" doc:"innodb_log_file_size of MySQL 5.1 (default 5 MiB); replaces engine.redo.log_file_size, whose checks are MariaDB's"`
	LogFilesInGroup   int       `toml:"innodb_log_files_in_group" unit:"files" doc:"innodb_log_files_in_group (default 2): the redo ring is this many files"`
	LogBufferSize     sim.Bytes `toml:"innodb_log_buffer_size" unit:"bytes" doc:"innodb_log_buffer_size of MySQL 5.1: 1 MiB built-in, 8 MiB in plugin >= 1.0.4 (the default here); replaces engine.redo.log_buffer_size. The log goes through the page cache, so it only sets when the log is copied there (at half the buffer)"`
	ThreadConcurrency int       `toml:"thread_concurrency" unit:"threads" doc:"innodb_thread_concurrency, which log_calc_max_ages reserves redo for (plugin default 0)"`
	FlushMethod       string    `toml:"innodb_flush_method" enum:"fdatasync|O_DIRECT" doc:"innodb_flush_method of MySQL 5.1 on Linux: fdatasync (the default, SRV_UNIX_FSYNC in srv0start.c: data files opened without O_DIRECT, so page writes and reads go through the kernel page cache and fsync writes the dirty pages) or O_DIRECT (every page I/O reaches the device). The redo log goes through the page cache either way"`
	OSPageCache       sim.Bytes `toml:"os_page_cache" unit:"bytes" doc:"fdatasync: memory the kernel's page cache gives ibdata1's clean pages (dirty pages are held until written whatever this is). Assumption: 512 MiB, an old PC of 1 GiB RAM less the 128 MiB pool, mysqld, the client and the OS (the study states no RAM; sensitivity table in docs/validation.md)"`
	SupportXA         bool      `toml:"support_xa" doc:"innodb_support_xa (default ON): with the binlog on, the prepare flushes the log as well as the commit, two redo fsyncs per transaction at trx_commit=1 (trx_prepare_off_kernel)"`

	Tablespace engine.TablespaceConfig `toml:"tablespace" doc:"ibdata1 and its autoextend"`
	Ibuf       engine.IbufConfig       `toml:"ibuf" doc:"the insert buffer"`
	Record     RecordConfig            `toml:"record" doc:"index record sizes"`
	CPU        CPUConfig               `toml:"cpu" doc:"server CPU of the load"`
	Sample     sim.Duration            `toml:"sample_interval" unit:"s" doc:"width of the time series' intervals"`
}

// RecordConfig holds the per-record overheads of InnoDB COMPACT records
// (bulkload-notes §2): the key lengths come from the fields above.
type RecordConfig struct {
	UndoBytes    int `toml:"undo_bytes" unit:"bytes" doc:"insert undo record per row: next pointer 2, type 1, undo_no and table_id compressed about 4, cl_from 1+4, cl_to 1+length, end 2 (trx_undo_page_report_insert); 15 + category_bytes"`
	NodePtrBytes int `toml:"node_ptr_bytes" unit:"bytes" doc:"bytes of a node pointer on a non-leaf page beyond the key: record header 5 + child page number 4"`
}

// CPUConfig is the CPU the load spends per row and per statement on one
// core of the old PC. Assumption: calibrated on step 1 of the study
// (docs/validation.md); the ratios between methods follow the MySQL manual's
// insert-cost proportions.
type CPUConfig struct {
	RowInsert   sim.Duration `toml:"row_insert" unit:"s per row" doc:"dump: parse a row of an extended INSERT and insert it into the clustered and secondary indexes"`
	RowLoadData sim.Duration `toml:"row_load_data" unit:"s per row" doc:"load_data: split a line into fields and insert the row"`
	RowCSV      sim.Duration `toml:"row_csv" unit:"s per row" doc:"csv_alter: parse a row of an INSERT and write it to the .CSV file (ha_tina::write_row, one my_write per row)"`
	RowCopy     sim.Duration `toml:"row_copy" unit:"s per row" doc:"csv_alter: read a row from the CSV table and insert it into InnoDB (copy_data_between_tables)"`
	Statement   sim.Duration `toml:"statement" unit:"s per statement" doc:"per statement: receive, start and commit the transaction"`
	Compress    sim.Duration `toml:"compress_page" unit:"s per page" doc:"compressed: zlib deflate of one page (page_zip_compress); assumption: 0.3 ms, 16 KiB at about 50 MB/s on a 2008 desktop core"`
	Decompress  sim.Duration `toml:"decompress_page" unit:"s per page" doc:"compressed: zlib inflate of one page (page_zip_decompress); assumption: 0.06 ms, about 250 MB/s"`
}

// DefaultConfig returns the jawiki categorylinks load of the study, step 1.
func DefaultConfig() Config {
	us := func(n float64) sim.Duration { return sim.Duration(n * float64(time.Microsecond)) }
	return Config{
		Method:            MethodDump,
		Rows:              4_400_000,
		SQLRowBytes:       100,
		StatementBytes:    1_047_551,
		CSVRowBytes:       85,
		CategoryBytes:     30,
		SortkeyBytes:      30,
		Categories:        50_000,
		Popularity:        1.0,
		TimestampSpread:   0.2,
		Months:            90,
		Partitioning:      "none",
		AlterCommitRows:   10_000,
		RowFormat:         "compact",
		KeyBlockSize:      8 * sim.KiB,
		CompressionRatio:  2.0,
		LogFileSize:       5 * sim.MiB,
		LogFilesInGroup:   2,
		LogBufferSize:     8 * sim.MiB,
		ThreadConcurrency: 0,
		SupportXA:         true,
		FlushMethod:       "fdatasync",
		OSPageCache:       512 * sim.MiB,
		Tablespace:        engine.DefaultTablespace(),
		Ibuf:              engine.DefaultIbuf(),
		Record:            RecordConfig{UndoBytes: 45, NodePtrBytes: 9},
		CPU: CPUConfig{
			RowInsert:   us(40),
			RowLoadData: us(20),
			RowCSV:      us(25),
			RowCopy:     us(15),
			Statement:   us(200),
			Compress:    us(300),
			Decompress:  us(60),
		},
		Sample: sim.Duration(10 * time.Second),
	}
}

// Validate checks every field; each message names the key and its range.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch c.Method {
	case MethodDump, MethodLoadData, MethodCSVAlter:
	default:
		bad("method: must be dump, load_data or csv_alter, got %q", c.Method)
	}
	if c.Rows < 1000 || c.Rows > 1_000_000_000 {
		bad("rows: must be in [1000, 1e9], got %d", c.Rows)
	}
	if c.SQLRowBytes < 10 || c.SQLRowBytes > 65536 {
		bad("sql_row_bytes: must be in [10, 65536], got %d", c.SQLRowBytes)
	}
	if int64(c.StatementBytes) < int64(c.SQLRowBytes) || c.StatementBytes > 1*sim.GiB {
		bad("statement_bytes: must be in [sql_row_bytes, 1GiB], got %v", c.StatementBytes)
	}
	if c.CSVRowBytes < 10 || c.CSVRowBytes > 65536 {
		bad("csv_row_bytes: must be in [10, 65536], got %d", c.CSVRowBytes)
	}
	if c.CategoryBytes < 1 || c.CategoryBytes > 765 {
		bad("category_bytes: must be in [1, 765] (varchar(255) in utf8), got %d", c.CategoryBytes)
	}
	if c.SortkeyBytes < 0 || c.SortkeyBytes > 210 {
		bad("sortkey_bytes: must be in [0, 210] (varchar(70) in utf8), got %d", c.SortkeyBytes)
	}
	if c.Categories < 1 || c.Categories > 10_000_000 {
		bad("categories: must be in [1, 1e7], got %d", c.Categories)
	}
	if !(c.Popularity >= 0 && c.Popularity <= 3) {
		bad("popularity: must be in [0, 3], got %v", c.Popularity)
	}
	if !(c.TimestampSpread >= 0 && c.TimestampSpread <= 1) {
		bad("timestamp_spread: must be in [0, 1], got %v", c.TimestampSpread)
	}
	if c.Months < 1 || c.Months > 1200 {
		bad("months: must be in [1, 1200], got %d", c.Months)
	}
	switch c.Partitioning {
	case "none", "month":
	default:
		bad("partitioning: must be none or month, got %q", c.Partitioning)
	}
	switch c.RowFormat {
	case "compact", "compressed":
	default:
		bad("row_format: must be compact or compressed, got %q", c.RowFormat)
	}
	switch c.KeyBlockSize {
	case 1 * sim.KiB, 2 * sim.KiB, 4 * sim.KiB, 8 * sim.KiB, 16 * sim.KiB:
	default:
		bad("key_block_size: must be 1KiB, 2KiB, 4KiB, 8KiB or 16KiB, got %v", c.KeyBlockSize)
	}
	if !(c.CompressionRatio >= 1 && c.CompressionRatio <= 20) {
		bad("compression_ratio: must be in [1, 20], got %v", c.CompressionRatio)
	}
	if c.AlterCommitRows < 1 || c.AlterCommitRows > 1_000_000_000 {
		bad("alter_commit_rows: must be in [1, 1e9], got %d", c.AlterCommitRows)
	}
	if c.LogFileSize < 1*sim.MiB || c.LogFileSize > 4*sim.GiB {
		bad("innodb_log_file_size: must be in [1MiB, 4GiB], got %v", c.LogFileSize)
	}
	if c.LogFilesInGroup < 2 || c.LogFilesInGroup > 100 {
		bad("innodb_log_files_in_group: must be in [2, 100], got %d", c.LogFilesInGroup)
	}
	if c.LogBufferSize < 256*sim.KiB || c.LogBufferSize > 4*sim.GiB {
		bad("innodb_log_buffer_size: must be in [256KiB, 4GiB], got %v", c.LogBufferSize)
	}
	switch c.FlushMethod {
	case "fdatasync", "O_DIRECT":
	default:
		bad("innodb_flush_method: must be fdatasync or O_DIRECT, got %q", c.FlushMethod)
	}
	if c.OSPageCache < 0 || c.OSPageCache > 1024*sim.GiB {
		bad("os_page_cache: must be in [0, 1TiB], got %v", c.OSPageCache)
	}
	if c.ThreadConcurrency < 0 || c.ThreadConcurrency > 1000 {
		bad("thread_concurrency: must be in [0, 1000], got %d", c.ThreadConcurrency)
	}
	if err := c.Tablespace.Validate(); err != nil {
		bad("tablespace.%v", err)
	}
	if err := c.Ibuf.Validate(); err != nil {
		bad("ibuf.%v", err)
	}
	if c.Record.UndoBytes < 8 || c.Record.UndoBytes > 4096 {
		bad("record.undo_bytes: must be in [8, 4096], got %d", c.Record.UndoBytes)
	}
	if c.Record.NodePtrBytes < 5 || c.Record.NodePtrBytes > 64 {
		bad("record.node_ptr_bytes: must be in [5, 64], got %d", c.Record.NodePtrBytes)
	}
	for _, x := range []struct {
		k string
		v sim.Duration
	}{{"row_insert", c.CPU.RowInsert}, {"row_load_data", c.CPU.RowLoadData}, {"row_csv", c.CPU.RowCSV}, {"row_copy", c.CPU.RowCopy}, {"statement", c.CPU.Statement}, {"compress_page", c.CPU.Compress}, {"decompress_page", c.CPU.Decompress}} {
		if x.v < 0 || x.v > sim.Duration(time.Second) {
			bad("cpu.%s: must be in [0, 1s], got %v", x.k, x.v)
		}
	}
	if c.Sample < sim.Duration(time.Second) || c.Sample > sim.Duration(time.Hour) {
		bad("sample_interval: must be in [1s, 1h], got %v", c.Sample)
	}
	return errors.Join(errs...)
}

// Record sizes of categorylinks in COMPACT format (bulkload-notes §2).
func (c Config) clusteredBytes() int { return 28 + c.CategoryBytes + c.SortkeyBytes }
func (c Config) sortkeyBytes() int   { return 11 + c.CategoryBytes + c.SortkeyBytes }
func (c Config) timestampBytes() int { return 14 + c.CategoryBytes }
func (c Config) rowsPerStatement() int {
	return max(1, int(int64(c.StatementBytes)/int64(c.SQLRowBytes)))
}
