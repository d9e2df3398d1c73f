package disk

import (
	"math"
	"time"

	"simrun/sim"
)

// seekCurve returns a and b of the seek-time curve
//
//	t(x) = seek_min + a*sqrt(x) + b*x,   x = |distance| / capacity in (0, 1]
//
// chosen so that t(1) = seek_max and the mean over two uniformly random
// positions equals seek_avg. For such positions x has density 2(1-x), so
// E[sqrt(x)] = 8/15 and E[x] = 1/3: a + b = max-min and 8a/15 + b/3 =
// avg-min. The square-root term is the acceleration-limited short seek, the
// linear term the coast at full speed (Ruemmler and Wilkes, "An introduction
// to disk drive modeling", IEEE Computer 1994).
func seekCurve(minS, avg, maxS sim.Duration) (a, b float64) {
	span := float64(maxS - minS)
	m := float64(avg - minS)
	// (8/15 - 1/3) a = m - span/3
	a = (m - span/3) / (8.0/15 - 1.0/3)
	b = span - a
	return max(a, 0), max(b, 0)
}

// address places a file on the platter: each file starts at a fixed,
// well-spread fraction of the capacity (a Weyl sequence on the golden
// ratio), rounded to 1 MiB, and its bytes follow contiguously, wrapping at
// the end. Files do not move and are not fragmented.
//
// With file_spacing set, files lie side by side instead, as a fresh
// filesystem allocates the files of one directory in neighbouring block
// groups: file n starts at n x file_spacing (the filesystem journal, id -1,
// at the start of the platter).
func (v *Volume) address(file int32, off int64) int64 {
	c := int64(v.cfg.Capacity)
	var base int64
	switch {
	case v.cfg.FileSpacing > 0 && file < 0:
		base = 0
	case v.cfg.FileSpacing > 0:
		base = int64(file) * int64(v.cfg.FileSpacing) % c
	default:
		frac := math.Mod(float64(uint32(file))*0.6180339887498949, 1)
		base = int64(frac*float64(c)) &^ (1<<20 - 1)
	}
	return (base + off%c) % c
}

// seek is the seek time in ns from the head's position to addr.
func (v *Volume) seek(addr int64) float64 {
	dist := addr - v.headPos
	if dist < 0 {
		dist = -dist
	}
	if dist == 0 {
		return 0
	}
	x := float64(dist) / float64(v.cfg.Capacity)
	return float64(v.cfg.SeekMin) + v.seekA*math.Sqrt(x) + v.seekB*x
}

// positioning is the time in ns from now until the head is over addr:
// the seek, then the wait for the sector to come round. With ncq the
// platter's angle is tracked: it turns once per revolution from time 0,
// and a byte address sits at its fraction of a track, a track holding one
// revolution's worth of the media rate there (zoned recording).
func (v *Volume) positioning(addr int64, now sim.Time) float64 {
	return v.positioningAt(addr, v.angle(addr), now)
}

// angle returns the ns into a revolution at which addr passes the head.
func (v *Volume) angle(addr int64) int64 {
	if !v.cfg.NCQ {
		return 0
	}
	tb := int64(v.trackBytes(addr))
	return addr % tb * int64(v.rev) / tb
}

// positioningAt is positioning for an address whose angle is known.
func (v *Volume) positioningAt(addr, target int64, now sim.Time) float64 {
	sk := v.seek(addr)
	rev := int64(v.rev)
	at := (int64(now) + int64(sk)) % rev
	wait := target - at
	if wait < 0 {
		wait += rev
	}
	return sk + float64(wait)
}

// trackBytes is the bytes of one track at addr: a revolution at the media
// rate there.
func (v *Volume) trackBytes(addr int64) float64 {
	r := float64(v.cfg.TransferRate)
	if inner := float64(v.cfg.TransferRateInner); inner > 0 {
		r -= (r - inner) * float64(addr) / float64(v.cfg.Capacity)
	}
	return max(512, r*float64(v.rev)/1e9)
}

// ncqNext is the next media job of a drive with command queuing: the one
// with the shortest positioning time among the queued host I/Os and the
// cached writes to destage (each within destageWindow), so that a read is
// not held back by a full write cache when it is nearer.
func (v *Volume) ncqNext() *ioNode {
	switch {
	case v.media.Len() == 0:
		v.nearestFirst(&v.destageQ)
		return v.destageQ.Pop()
	case v.destageQ.Len() == 0:
		v.nearestFirst(&v.media)
		return v.media.Pop()
	}
	hm := v.nearestFirst(&v.media)
	hd := v.nearestFirst(&v.destageQ)
	if hm <= hd {
		return v.media.Pop()
	}
	return v.destageQ.Pop()
}

// nearestFirst moves the job the drive would serve next among the first
// destageWindow of q to its front: the drive's reordering of its queue
// (NCQ for host commands, the cache's elevator for destages) is bounded.
// With ncq it is the shortest positioning time (seek and rotation, as
// drives with command queuing schedule), else the shortest seek.
// It returns the chosen job's cost (ns with ncq, bytes of distance without).
func (v *Volume) nearestFirst(q *sim.FIFO[*ioNode]) float64 {
	if q.Len() == 0 {
		return 0
	}
	now := v.env.Now()
	best, bestD := 0, -1.0
	for i := 0; i < min(q.Len(), destageWindow); i++ {
		var d float64
		if n := q.At(i); v.cfg.NCQ {
			d = v.positioningAt(n.addr, n.rot, now)
		} else {
			d = math.Abs(float64(q.At(i).addr - v.headPos))
		}
		if bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	q.Swap(0, best)
	return bestD
}

// mediaXfer is the media transfer time of size bytes at addr: with zoned
// recording (transfer_rate_inner) the rate falls linearly from the outer
// edge (address 0) to the inner one, as a data sheet's zone table shows
// (the 7K500: 64.8 MB/s in zone 0, 31.0 MB/s in zone 29).
func (v *Volume) mediaXfer(addr, size int64) time.Duration {
	inner := int64(v.cfg.TransferRateInner)
	outer := int64(v.cfg.TransferRate)
	if inner <= 0 || outer == 0 || size == 0 {
		return v.xfer(size)
	}
	x := float64(addr) / float64(v.cfg.Capacity)
	r := float64(outer) - float64(outer-inner)*x
	return time.Duration(math.Ceil(float64(size) * 1e9 / r))
}

// mechanical is the time one actuator needs for an access of size bytes at
// addr: seek by distance, rotational latency, media transfer. Continuing
// exactly where the last access ended needs no seek; the sector is under the
// head if the media has been busy since, else it comes round after the
// rest of the revolution that elapsed while idle.
func (v *Volume) mechanical(addr, size int64, now sim.Time) time.Duration {
	var d time.Duration
	if addr == v.headPos {
		if gap := time.Duration(now - v.mediaEnd); gap > 0 && v.mediaEnd > 0 {
			d = (v.rev - gap%v.rev) % v.rev
		}
	} else if v.cfg.NCQ {
		d = time.Duration(math.Round(v.positioning(addr, now)))
	} else {
		rot := v.rot.Float64() * float64(v.rev)
		d = time.Duration(math.Round(v.seek(addr) + rot))
	}
	d += v.mediaXfer(addr, size)
	v.headPos = (addr + size) % int64(v.cfg.Capacity)
	return d
}

// SourceBytes returns the bytes read and written so far (since
// ResetStats) by the requests of source src, so that a driver can sample
// per-source rates over time.
func (v *Volume) SourceBytes(src Source) (read, write int64) {
	return v.st.srcRead[src], v.st.srcWrite[src]
}

// readToFront moves the oldest queued read among the first mergeScan
// queued I/Os to the front of the volume queue (reads_first: CFQ serves
// the synchronous queue before the asynchronous one).
func (v *Volume) readToFront() {
	q := &v.queue
	if q.Len() < 2 || q.Front().op == Read {
		return
	}
	for i := 1; i < min(q.Len(), mergeScan); i++ {
		if q.At(i).op == Read {
			for j := i; j > 0; j-- {
				q.Swap(j, j-1)
			}
			return
		}
	}
}
