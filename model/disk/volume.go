package disk

import (
	"fmt"
	"math"
	"simrun/internal/trace"
	"time"

	"simrun/sim"
)

// Op is the kind of a device request.
type Op uint8

// Device operations.
const (
	Read Op = iota
	Write
	Flush // empty cache flush (fsync barrier); Size is 0
)

func (o Op) String() string {
	switch o {
	case Read:
		return "read"
	case Write:
		return "write"
	case Flush:
		return "flush"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Source is an accounting tag naming the subsystem that issued an I/O
// (redo, binlog, page, doublewrite, relay...). Register names with
// RegisterSource; bytes are reported per source name.
type Source uint8

// MaxSources is the number of source names a volume can hold.
const MaxSources = 16

// Predefined sources: every volume registers these two first.
const (
	SourceOther   Source = 0 // I/O submitted without a registered source
	SourceJournal Source = 1 // filesystem metadata journal commits (File.Sync)
)

// Request is one I/O as a caller submits it.
type Request struct {
	Op     Op
	File   int32 // file id: merging, HDD placement; see OpenFile for ids in use
	Offset int64 // bytes within the file
	Size   int64 // bytes (0 for Flush)
	Source Source
	// Kernel marks I/O a kernel thread submits (the flusher's write-back,
	// jbd2's journal commit): it belongs to no process's cgroup, so the
	// server's blkio Throttle does not charge or hold it.
	Kernel bool
	Done   func(any) // called at completion (may be nil)
	Arg    any
}

// reqNode is a caller's request in flight; split requests wait for pieces.
type reqNode struct {
	done      func(any)
	arg       any
	op        Op
	src       Source
	size      int64
	pieces    int32
	submitted sim.Time
}

// ioNode is one device I/O: a request, a piece of a split request, several
// merged requests, a flush, or an internal destage job.
type ioNode struct {
	op      Op
	destage bool
	file    int32
	off     int64
	size    int64
	addr    int64 // hdd: position on the platter in bytes
	rot     int64 // hdd with ncq: ns into a revolution at which addr passes the head
	queued  sim.Time
	started sim.Time // when it took a device slot
	target  uint64   // flush: cached writes it must see destaged
	reqs    []*reqNode
}

// traceEvent names a device-level event for the test hook.
type traceEvent uint8

const (
	evDispatch traceEvent = iota // a data I/O took its tokens and a slot
	evAck                        // the write cache acknowledged a write
	evDestaged                   // a cached write reached the media
	evComplete                   // a device I/O completed (host-visible)
)

// Volume is a simulated block device. It is driven by its Env and is not
// safe for concurrent use.
type Volume struct {
	env *sim.Env
	cfg Config

	readDist, writeDist, flushDist   sim.Dist
	readRNG, writeRNG, flushRNG, rot *sim.Stream

	iops, bw, credits *sim.TokenBucket
	thr               *throttle // the server's cgroup throttle in front (nil: none)

	queue    sim.FIFO[*ioNode] // waiting for a slot and tokens (mergeable)
	flushQ   sim.FIFO[*ioNode] // flushes waiting for a slot (they bypass the caps)
	inflight int               // I/Os holding a device slot

	wakeTimer   sim.Timer
	wakeAt      sim.Time
	wakePending bool

	// media: the hdd actuator, or the destager of a write cache; one job
	// at a time in FIFO order.
	media     sim.FIFO[*ioNode] // host I/Os (hdd reads, uncached writes), FIFO
	destageQ  sim.FIFO[*ioNode] // destage jobs; hdd picks shortest seek in a window
	mediaBusy bool
	mediaEnd  sim.Time // when the media last went idle
	headPos   int64    // hdd: byte address under the head
	seekA     float64  // hdd seek curve: min + a*sqrt(x) + b*x, ns
	seekB     float64
	rev       time.Duration

	// write cache
	dirty     int64
	acked     uint64 // cached writes acknowledged; the k-th has seq k
	destaged  uint64 // every cached write with seq <= destaged is on media
	dsDone    []bool // destage done flags for seq in (destaged, acked]
	cacheWait sim.FIFO[*ioNode]
	flushWait sim.FIFO[*ioNode]

	reqPool sim.Pool[reqNode]
	ioPool  sim.Pool[ioNode]

	// doneQueued is the queue time of the request whose Done is running
	// (QueueTime), 0 outside a callback.
	doneQueued time.Duration

	sources []string

	fs fsys // the filesystem on the volume

	st stats_

	// trace, when set (tests), sees every device-level event.
	trace func(ev traceEvent, n *ioNode)

	rec      *trace.Recorder // nil unless a trace is being recorded
	recTrack [3]trace.TrackID
	recQueue trace.TrackID

	complete, onWake, mediaDone, ackCached, flushReady func(any)

	irq func() // SetInterrupt's: one call per host-visible completion

	flushHook func() // SetFlushDispatch's: one call per flush request
}

// New builds a volume on env. The configuration is validated first.
func New(env *sim.Env, cfg Config) (*Volume, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v := &Volume{env: env, cfg: cfg}
	var err error
	if v.readDist, err = cfg.ReadLatency.Dist(); err != nil {
		return nil, fmt.Errorf("read_latency: %w", err)
	}
	if v.writeDist, err = cfg.WriteLatency.Dist(); err != nil {
		return nil, fmt.Errorf("write_latency: %w", err)
	}
	if v.flushDist, err = cfg.FlushLatency.Dist(); err != nil {
		return nil, fmt.Errorf("flush_latency: %w", err)
	}
	name := cfg.Name
	if name == "" {
		name = cfg.Kind
	}
	v.readRNG = env.Stream("disk/" + name + "/read")
	v.writeRNG = env.Stream("disk/" + name + "/write")
	v.flushRNG = env.Stream("disk/" + name + "/flush")
	v.rot = env.Stream("disk/" + name + "/rotation")

	iopsRate := int64(math.Round(float64(cfg.IOPSMax)))
	v.iops = sim.NewTokenBucket(iopsRate, burstTokens(iopsRate, cfg.BurstWindow))
	v.bw = sim.NewTokenBucket(int64(cfg.BandwidthMax), burstTokens(int64(cfg.BandwidthMax), cfg.BurstWindow))
	if c := cfg.Credits; c.Balance > 0 {
		v.credits = sim.NewTokenBucket(int64(math.Round(float64(c.BaselineIOPS))), int64(c.Balance))
	}
	if cfg.Throttle.On() {
		v.thr = newThrottle(v, cfg.Throttle)
	}
	if cfg.Kind == "hdd" {
		v.rev = time.Duration(60e9 / float64(cfg.RPM))
		v.seekA, v.seekB = seekCurve(cfg.SeekMin, cfg.SeekAvg, cfg.SeekMax)
	}
	v.sources = []string{"other", "fs_journal"}
	v.complete = v.onComplete
	v.onWake = v.wake
	v.mediaDone = v.onMediaDone
	v.ackCached = v.onAckCached
	v.flushReady = v.onFlushReady
	v.fs.init(env, v, &v.cfg, &v.doneQueued)
	v.st.init(env.Now())
	if v.credits != nil {
		v.st.credStart = v.credits.Level(env.Now())
	}
	return v, nil
}

// Config returns the volume's configuration.
func (v *Volume) Config() Config { return v.cfg }

// SetInterrupt makes every host-visible completion (a device I/O, a
// cached write's acknowledgement, a flush) call irq first, before the
// callers' callbacks run: the completion interrupt the host's CPU takes
// (sim.CPU.Interrupt). Merged requests are one I/O and one interrupt.
func (v *Volume) SetInterrupt(irq func()) { v.irq = irq }

// SetFlushDispatch makes every flush request call fn as it enters the
// device queue: the host's block layer hands a cache flush to a kernel
// worker to dispatch (Linux's blk-flush puts it on the requeue list and
// kicks kblockd: blk_kick_flush, blk_mq_kick_requeue_list), whose CPU the
// caller charges. Flushes are never merged, so it is one call each.
func (v *Volume) SetFlushDispatch(fn func()) { v.flushHook = fn }

// RegisterSource returns the Source for name, registering it if new.
// Names keep their registration order; a volume holds MaxSources names,
// two of which ("other", "fs_journal") are predefined. Registering more is a
// programming error and panics.
func (v *Volume) RegisterSource(name string) Source {
	for i, s := range v.sources {
		if s == name {
			return Source(i)
		}
	}
	if len(v.sources) >= MaxSources {
		panic(fmt.Sprintf("disk: more than %d I/O sources (registering %q)", MaxSources, name))
	}
	v.sources = append(v.sources, name)
	return Source(len(v.sources) - 1)
}

// SourceName returns the registered name of s.
func (v *Volume) SourceName(s Source) string {
	if int(s) < len(v.sources) {
		return v.sources[s]
	}
	return fmt.Sprintf("source%d", s)
}

// Submit queues one request. The request is copied; Done(Arg) runs when it
// completes: for a read or write when every byte is done (acknowledged by the
// write cache when there is one), for a flush when every write acknowledged
// before the flush was submitted is durable. Bad requests (negative offset,
// empty read/write, unknown op) are programming errors and panic.
func (v *Volume) Submit(r Request) {
	switch r.Op {
	case Read, Write:
		if r.Size <= 0 || r.Offset < 0 {
			panic(fmt.Sprintf("disk: %v of %d bytes at offset %d", r.Op, r.Size, r.Offset))
		}
	case Flush:
	default:
		panic(fmt.Sprintf("disk: unknown op %d", r.Op))
	}
	if int(r.Source) >= MaxSources {
		panic(fmt.Sprintf("disk: source %d out of range", r.Source))
	}
	if v.thr != nil && !v.thr.admit(r) {
		return // the throttle enqueues it when its allowance comes
	}
	v.enqueue(r)
}

// enqueue puts a request that passed the throttle into the volume's
// queues: from here on it counts in the volume's statistics.
func (v *Volume) enqueue(r Request) {
	now := v.env.Now()
	rq := v.newReq()
	rq.done, rq.arg, rq.op, rq.src, rq.size, rq.submitted = r.Done, r.Arg, r.Op, r.Source, r.Size, now
	v.st.submitted(r.Op, r.Size)

	if r.Op == Flush {
		if v.flushHook != nil {
			v.flushHook()
		}
		n := v.newIO()
		n.op, n.queued = Flush, now
		n.reqs = append(n.reqs, rq)
		rq.pieces = 1
		v.flushQ.Push(n)
		v.st.depthAdd(now, 1)
		v.dispatch()
		return
	}
	if v.cfg.Merge && v.tryMerge(rq, r, now) {
		v.dispatch()
		return
	}
	maxIO := int64(v.cfg.MaxIOSize)
	for off, end := r.Offset, r.Offset+r.Size; off < end; off += maxIO {
		n := v.newIO()
		n.op, n.file, n.off, n.size, n.queued = r.Op, r.File, off, min(maxIO, end-off), now
		n.reqs = append(n.reqs, rq)
		rq.pieces++
		v.queue.Push(n)
		v.st.depthAdd(now, 1)
	}
	v.dispatch()
}

// mergeScan bounds how far back from the tail Submit looks for a queued I/O
// to extend; Linux keeps a hash of request ends, and a short scan finds the
// same candidates for the streams a database issues.
const mergeScan = 64

// tryMerge extends a queued I/O of the same op and file that ends where r
// starts, if the result fits max_io_size (a block-layer back merge).
func (v *Volume) tryMerge(rq *reqNode, r Request, now sim.Time) bool {
	for i, k := v.queue.Len()-1, 0; i >= 0 && k < mergeScan; i, k = i-1, k+1 {
		n := v.queue.At(i)
		if n.op != r.Op || n.file != r.File || n.off+n.size != r.Offset {
			continue
		}
		if n.size+r.Size > int64(v.cfg.MaxIOSize) {
			return false
		}
		n.size += r.Size
		n.reqs = append(n.reqs, rq)
		rq.pieces = 1
		v.st.merged(r.Op)
		return true
	}
	return false
}

// opsOf is the IOPS cost of an I/O: max(1, ceil(size/io_unit)).
func (v *Volume) opsOf(size int64) int64 {
	u := int64(v.cfg.IOUnit)
	return max(1, (size+u-1)/u)
}

// dispatch starts queued I/Os while a device slot is free and the caps allow.
// Flushes carry no data and bypass the caps (Linux sends an empty flush
// straight to the device); data I/Os start in FIFO order.
func (v *Volume) dispatch() {
	now := v.env.Now()
	for v.inflight < v.cfg.QueueDepth {
		if v.flushQ.Len() > 0 {
			v.start(v.flushQ.Pop(), now)
			continue
		}
		if v.queue.Len() == 0 {
			break
		}
		if v.cfg.ReadsFirst {
			v.readToFront()
		}
		head := v.queue.Front()
		ops := v.opsOf(head.size)
		t, why := v.iops.ReadyAt(now, ops), boundIOPS
		if v.credits != nil {
			if tc := v.credits.ReadyAt(now, ops); tc > t {
				t, why = tc, boundCredits
			}
		}
		if tb := v.bw.ReadyAt(now, head.size); tb > t {
			t, why = tb, boundBW
		}
		if t > now {
			v.st.setBound(now, why)
			v.wakeUp(t)
			return
		}
		v.iops.Take(now, ops)
		if v.credits != nil {
			v.credits.Take(now, ops)
			v.st.credTaken += ops
		}
		v.bw.Take(now, head.size)
		n := v.queue.Pop()
		if v.trace != nil {
			v.trace(evDispatch, n)
		}
		v.start(n, now)
	}
	v.st.setBound(now, boundNone)
}

func (v *Volume) wakeUp(t sim.Time) {
	if v.wakePending {
		if v.wakeAt <= t {
			return
		}
		v.env.Cancel(v.wakeTimer)
	}
	v.wakePending, v.wakeAt = true, t
	v.wakeTimer = v.env.AtArg(t, v.onWake, nil)
}

func (v *Volume) wake(any) {
	v.wakePending = false
	v.dispatch()
}

// xfer is the transfer time of size bytes at transfer_rate.
func (v *Volume) xfer(size int64) time.Duration {
	r := int64(v.cfg.TransferRate)
	if r == 0 || size == 0 {
		return 0
	}
	return time.Duration((size*1e9 + r - 1) / r)
}

func (v *Volume) start(n *ioNode, now sim.Time) {
	v.inflight++
	n.started = now
	hdd := v.cfg.Kind == "hdd"
	switch {
	case n.op == Flush:
		if !v.cfg.WriteCache || v.destaged >= v.acked || v.cfg.Barriers == "off" {
			v.env.AfterArg(sim.SampleDuration(v.flushDist, v.flushRNG), v.complete, n)
			return
		}
		n.target = v.acked
		v.flushWait.Push(n)
	case n.op == Write && v.cfg.WriteCache:
		if v.cacheWait.Len() == 0 && v.dirty+n.size <= int64(v.cfg.WriteCacheSize) {
			v.admit(n)
		} else {
			v.cacheWait.Push(n)
		}
	case hdd:
		n.addr = v.address(n.file, n.off)
		n.rot = v.angle(n.addr)
		v.mediaPush(n)
	default:
		d := v.readDist
		rng := v.readRNG
		if n.op == Write {
			d, rng = v.writeDist, v.writeRNG
		}
		v.env.AfterArg(sim.SampleDuration(d, rng)+v.xfer(n.size), v.complete, n)
	}
}

// admit takes cache space for a write and acknowledges it after the cache
// latency.
func (v *Volume) admit(n *ioNode) {
	v.dirty += n.size
	v.env.AfterArg(sim.SampleDuration(v.writeDist, v.writeRNG)+v.xfer(n.size), v.ackCached, n)
}

// onAckCached acknowledges a cached write and queues its destage job.
func (v *Volume) onAckCached(a any) {
	n := a.(*ioNode)
	v.acked++
	if v.trace != nil {
		v.trace(evAck, n)
	}
	if v.acked-v.destaged >= uint64(len(v.dsDone)) {
		v.growDsDone()
	}
	v.dsDone[v.acked%uint64(len(v.dsDone))] = false
	d := v.newIO()
	d.op, d.destage, d.file, d.off, d.size = Write, true, n.file, n.off, n.size
	d.target = v.acked
	if v.cfg.Kind == "hdd" {
		d.addr = v.address(n.file, n.off)
		d.rot = v.angle(d.addr)
	}
	v.mediaPush(d)
	v.onComplete(n)
}

func (v *Volume) growDsDone() {
	n := make([]bool, max(64, 2*len(v.dsDone)))
	for s := v.destaged + 1; s < v.acked; s++ {
		n[s%uint64(len(n))] = v.dsDone[s%uint64(len(v.dsDone))]
	}
	v.dsDone = n
}

func (v *Volume) mediaPush(n *ioNode) {
	if n.destage {
		v.destageQ.Push(n)
	} else {
		v.media.Push(n)
	}
	if !v.mediaBusy {
		v.mediaNext()
	}
}

// destageWindow is how many of the oldest dirty writes the hdd considers
// when it picks the next one to destage (the nearest to the head): drives
// reorder their cache like an elevator, but not without bound.
const destageWindow = 32

// nextMediaJob picks the next job: host I/Os first (a drive serves reads
// before it destages acknowledged writes), unless writers are blocked on a
// full cache; destages in ack order, or on the hdd the nearest of the
// oldest destageWindow.
func (v *Volume) nextMediaJob() *ioNode {
	if v.cfg.NCQ && v.cfg.Kind == "hdd" {
		return v.ncqNext()
	}
	if v.media.Len() > 0 && (v.destageQ.Len() == 0 || v.cacheWait.Len() == 0) {
		return v.media.Pop()
	}
	if v.cfg.Kind == "hdd" {
		v.nearestFirst(&v.destageQ)
	}
	return v.destageQ.Pop()
}

// mediaNext starts the next media job: a mechanical hdd access, or a
// destage at destage_rate.
func (v *Volume) mediaNext() {
	now := v.env.Now()
	n := v.nextMediaJob()
	v.mediaBusy = true
	var d time.Duration
	if v.cfg.Kind == "hdd" {
		d = v.mechanical(n.addr, n.size, now)
		if !n.destage {
			dist, rng := v.readDist, v.readRNG
			if n.op == Write {
				dist, rng = v.writeDist, v.writeRNG
			}
			d += sim.SampleDuration(dist, rng)
		}
	} else {
		r := int64(v.cfg.DestageRate)
		d = time.Duration((n.size*1e9 + r - 1) / r)
	}
	v.env.AfterArg(d, v.mediaDone, n)
}

func (v *Volume) onMediaDone(a any) {
	n := a.(*ioNode)
	v.mediaBusy = false
	v.mediaEnd = v.env.Now()
	if n.destage {
		v.dirty -= n.size
		v.dsDone[n.target%uint64(len(v.dsDone))] = true
		for v.destaged < v.acked && v.dsDone[(v.destaged+1)%uint64(len(v.dsDone))] {
			v.destaged++
		}
		if v.trace != nil {
			v.trace(evDestaged, n)
		}
		v.freeIOnode(n)
		for v.cacheWait.Len() > 0 && v.dirty+v.cacheWait.Front().size <= int64(v.cfg.WriteCacheSize) {
			v.admit(v.cacheWait.Pop())
		}
		for v.flushWait.Len() > 0 && v.flushWait.Front().target <= v.destaged {
			v.env.AfterArg(sim.SampleDuration(v.flushDist, v.flushRNG), v.flushReady, v.flushWait.Pop())
		}
	} else {
		v.onComplete(n)
	}
	if !v.mediaBusy && v.media.Len()+v.destageQ.Len() > 0 {
		v.mediaNext()
	}
}

func (v *Volume) onFlushReady(a any) { v.onComplete(a) }

// onComplete finishes a host-visible device I/O: statistics, the slot, the
// callers' callbacks, then more dispatching.
func (v *Volume) onComplete(a any) {
	n := a.(*ioNode)
	now := v.env.Now()
	if v.irq != nil {
		v.irq()
	}
	v.inflight--
	v.st.completed(now, n.op, n.size, now-n.queued)
	if v.trace != nil {
		v.trace(evComplete, n)
	}
	if v.rec != nil {
		v.recordIO(n, now)
	}
	for _, rq := range n.reqs {
		rq.pieces--
		if rq.pieces > 0 {
			continue
		}
		v.st.reqDone(rq.op, rq.src, rq.size)
		done, arg := rq.done, rq.arg
		q := max(0, time.Duration(n.started-rq.submitted))
		v.freeReqNode(rq)
		if done != nil {
			v.doneQueued = q
			done(arg)
			v.doneQueued = 0
		}
	}
	v.freeIOnode(n)
	v.dispatch()
}

func (v *Volume) newReq() *reqNode { return v.reqPool.Get() }

func (v *Volume) freeReqNode(r *reqNode) {
	*r = reqNode{}
	v.reqPool.Put(r)
}

func (v *Volume) newIO() *ioNode { return v.ioPool.Get() }

// freeIOnode releases n, keeping its reqs slice's capacity.
func (v *Volume) freeIOnode(n *ioNode) {
	clear(n.reqs)
	*n = ioNode{reqs: n.reqs[:0]}
	v.ioPool.Put(n)
}

// QueueTime returns, inside a request's Done callback, how long that
// request waited in the volume before the device started on it: from Submit
// until the device I/O that completed it took a slot, i.e. the wait for
// cap tokens and behind other I/O (a merged request counts from its own
// Submit; a split one by the piece that completed it). Latency minus
// QueueTime is the service. Inside the callback of a File.Sync it is the
// summed queue time of the device I/Os the sync issued once its writes were
// done (its flush, or the journal commit's writes and flushes). Outside a
// callback it is 0. It lets a caller charge device queueing from the
// volume's own accounting instead of estimating it.
func (v *Volume) QueueTime() time.Duration { return v.doneQueued }

// Idle reports whether no I/O is queued or in flight (destaging may go on).
func (v *Volume) Idle() bool {
	return v.inflight == 0 && v.queue.Len() == 0 && v.flushQ.Len() == 0
}

// Dirty returns the bytes acknowledged by the write cache but not yet on media.
func (v *Volume) Dirty() int64 { return v.dirty }

// SetTrace records every device I/O that completes inside the recorder's
// window: the time it waited in the volume queue (for a slot or for cap
// tokens) and its service, on tracks "disk/queue", "disk/read",
// "disk/write" and "disk/flush".
func (v *Volume) SetTrace(rec *trace.Recorder) {
	v.rec = rec
	if rec == nil {
		return
	}
	v.recQueue = rec.Track("disk/queue")
	for op, name := range []string{"disk/read", "disk/write", "disk/flush"} {
		v.recTrack[op] = rec.Track(name)
	}
}

func (v *Volume) recordIO(n *ioNode, now sim.Time) {
	name := [...]string{"read", "write", "flush"}[n.op]
	src := "other"
	if len(n.reqs) > 0 {
		src = v.SourceName(n.reqs[0].src)
	}
	if n.started > n.queued {
		v.rec.Span(v.recQueue, name+" waits", n.queued, n.started, trace.Str("source", src))
	}
	v.rec.Span(v.recTrack[n.op], name+" "+src, n.started, now,
		trace.Int("bytes", n.size), trace.Int("requests", int64(len(n.reqs))))
}
