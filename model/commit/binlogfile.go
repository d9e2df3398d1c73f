package commit

import (
	"fmt"

	"simrun/model/disk"
	"simrun/sim"
)

// osPage is the page-cache page size: write-back and fdatasync write whole
// pages, so the last partial page of an appending file is written again by
// the next sync.
const osPage = 4096

// binlogFile is the classic binary log: an appending file written through
// the page cache. write() copies into the cache; fdatasync writes the dirty
// pages and, because the file grew, commits the filesystem journal (the
// disk File models that). Without a sync the kernel's flusher thread writes
// the dirty pages back once the inode has been dirty for dirty_expire
// (checked every dirty_writeback period), and ext4 commits the block
// allocations every commit interval. An inode redirtied while its
// write-back is in flight keeps its old dirtied_when (fs/fs-writeback.c:
// __mark_inode_dirty leaves an inode queued for write-back alone, and
// requeue_inode -> redirty_tail_locked keeps the time of a lone dirty
// inode), so a file appended without pause is written back at every
// flusher run once it has first expired: one large write-back dirty_expire
// after the file was created, then one every dirty_writeback period.
type binlogFile struct {
	env  *sim.Env
	vol  *disk.Volume
	cfg  BinlogConfig
	src  disk.Source
	file *disk.File
	seq  int

	end        int64    // bytes appended (in the page cache)
	clean      int64    // bytes whose pages have been sent to the device
	dirtySince sim.Time // when the inode turned dirty
	dirty      bool
	allocated  bool // written back since the last journal commit

	wb         []wbRange // write-back not yet submitted
	wbInflight int
	wbDepth    int
	wbDone     func(any)
	syncDone   func(any)
	wbCB       func()
	commitCB   func()

	// statistics
	Syncs     int64
	Bytes     int64 // appended
	WBWrites  int64 // write-back batches
	Rotations int64
}

func newBinlogFile(env *sim.Env, vol *disk.Volume, cfg BinlogConfig, src disk.Source) *binlogFile {
	b := &binlogFile{env: env, vol: vol, cfg: cfg, src: src}
	b.file = vol.OpenFile("binlog.000001", false)
	b.seq = 1
	b.wbCB = b.writeback
	b.commitCB = b.fsCommit
	b.wbDone = b.onWBDone
	b.wbDepth = vol.Config().QueueDepth
	return b
}

// start schedules the kernel flusher and the ext4 journal commits.
func (b *binlogFile) start() {
	b.env.After(b.cfg.OSWritebackPeriod.D(), b.wbCB)
	b.env.After(b.cfg.FSCommitInterval.D(), b.commitCB)
}

// append copies n bytes of binlog into the page cache.
func (b *binlogFile) append(n int64) {
	if !b.dirty {
		b.dirty = true
		if b.wbInflight == 0 && len(b.wb) == 0 { // else: redirtied during write-back
			b.dirtySince = b.env.Now()
		}
	}
	b.end += n
	b.Bytes += n
}

// written is the leader's write(2) of the appended bytes: it grows
// i_size, so the kernel journals the file's inode (disk.File.DirtyInode).
// It reports whether the write sleeps because a journal commit is writing
// that inode's block; done(arg) then runs when it wakes.
func (b *binlogFile) written(done func(any), arg any) bool {
	return b.file.DirtyInode(done, arg)
}

// rotate switches to the next file once max_binlog_size is reached and
// reports whether it did. MariaDB closes the full file with a sync whatever
// sync_binlog says (MYSQL_BIN_LOG::close -> MYSQL_LOG::close: "this will
// cleanup IO_CACHE, sync and close the file"), in the group commit leader
// while it holds LOCK_log: every dirty page of the old file is written,
// write-back not yet submitted included, and the journal commits its size.
// done(arg) runs when that sync completes.
func (b *binlogFile) rotate(done func(any), arg any) bool {
	if b.end < int64(b.cfg.MaxBinlogSize) {
		return false
	}
	old := b.file
	from := b.clean / osPage * osPage
	to := (b.end + osPage - 1) / osPage * osPage
	if to > from {
		old.WriteAt(from, to-from, b.src, nil, nil)
	}
	keep := b.wb[:0]
	for _, r := range b.wb {
		if r.f == old {
			old.WriteAt(r.from, r.to-r.from, b.src, nil, nil)
			continue
		}
		keep = append(keep, r)
	}
	clear(b.wb[len(keep):])
	b.wb = keep
	b.Syncs++
	old.Sync(done, arg)
	b.seq++
	b.Rotations++
	b.file = b.vol.OpenFile(fmt.Sprintf("binlog.%06d", b.seq), false)
	b.end, b.clean, b.dirty = 0, 0, false
	b.dirtySince = b.env.Now() // the new inode, dirtied by the next append
	return true
}

// writeRange hands the dirty pages [clean, end) to the kernel's
// write-back: they go to the device as max_io_size requests, at most
// wbDepth of them outstanding (the block layer's request tags: the flusher
// thread blocks when they are all in use), so other I/O interleaves with
// a long write-back instead of queueing behind all of it.
func (b *binlogFile) writeRange() {
	from := b.clean / osPage * osPage
	to := (b.end + osPage - 1) / osPage * osPage
	if to > from {
		b.wb = append(b.wb, wbRange{b.file, from, to})
		b.pump()
	}
	b.clean = b.end
	b.dirty = false
	b.allocated = true
}

type wbRange struct {
	f        *disk.File
	from, to int64
}

// pump submits write-back requests while tags are free.
func (b *binlogFile) pump() {
	maxIO := int64(b.vol.Config().MaxIOSize)
	for b.wbInflight < b.wbDepth && len(b.wb) > 0 {
		r := &b.wb[0]
		n := min(maxIO, r.to-r.from)
		b.wbInflight++
		r.f.WriteBackAt(r.from, n, b.src, b.wbDone, nil) // the flusher's, not the server's
		r.from += n
		if r.from >= r.to {
			b.wb[0] = wbRange{}
			b.wb = b.wb[1:]
		}
	}
}

func (b *binlogFile) onWBDone(any) {
	b.wbInflight--
	b.pump()
}

// sync is fdatasync by thread by: write the dirty pages, then flush (with
// the journal commit of the new size). wrote(arg) runs when the data write
// completes, done(arg) when the sync does.
func (b *binlogFile) sync(by disk.Sleeper, wrote func(any), done func(any), arg any) {
	b.Syncs++
	from := b.clean / osPage * osPage
	to := (b.end + osPage - 1) / osPage * osPage
	if to > from {
		b.file.WriteAt(from, to-from, b.src, wrote, arg)
	} else if wrote != nil {
		wrote(arg)
	}
	b.clean = b.end
	b.dirty = false
	b.allocated = false // fdatasync commits the journal itself
	b.file.SyncBy(by, done, arg)
}

// writeback is one run of the kernel flusher thread: an inode dirty for
// longer than dirty_expire has all its dirty pages written.
func (b *binlogFile) writeback() {
	now := b.env.Now()
	if b.dirty && now.Sub(b.dirtySince) >= b.cfg.OSDirtyExpire.D() {
		b.WBWrites++
		b.writeRange()
	}
	b.env.After(b.cfg.OSWritebackPeriod.D(), b.wbCB)
}

// fsCommit is ext4's periodic journal commit (jbd2, commit=5): block
// allocations of written-back data become durable through the volume's
// filesystem journal, shared with the fsyncs of growing files.
func (b *binlogFile) fsCommit() {
	if b.allocated {
		b.allocated = false
		b.vol.CommitJournal(nil, nil)
	}
	b.env.After(b.cfg.FSCommitInterval.D(), b.commitCB)
}
