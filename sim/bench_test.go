package sim

import (
	"container/heap"
	"math"
	"testing"
	"time"
)

// The hold model: N events pending; each event, when it runs, schedules one
// more at now + Exp(mean). It measures the event queue alone.
const holdMean = 1e6 // ns

func BenchmarkHold(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run("pending="+itoa(n), func(b *testing.B) {
			e := New(1)
			s := e.Stream("hold")
			var hold func(any)
			hold = func(any) {
				e.AfterArg(time.Duration(s.Exp()*holdMean), hold, nil)
			}
			for i := 0; i < n; i++ {
				e.AfterArg(time.Duration(s.Exp()*holdMean), hold, nil)
			}
			measureSteps(b, e, 2*n) // warm-up: reach the steady state
		})
	}
}

// BenchmarkHoldBurst schedules groups of events at one instant (a group
// commit waking its waiters): the zero-delay fast path.
func BenchmarkHoldBurst(b *testing.B) {
	e := New(1)
	s := e.Stream("burst")
	const group = 16
	var wake func(any)
	var leader func(any)
	wake = func(any) {}
	leader = func(any) {
		for i := 0; i < group-1; i++ {
			e.AfterArg(0, wake, nil)
		}
		e.AfterArg(time.Duration(s.Exp()*holdMean), leader, nil)
	}
	for i := 0; i < 1000; i++ {
		e.AfterArg(time.Duration(s.Exp()*holdMean), leader, nil)
	}
	measureSteps(b, e, 100000)
}

// baselineEvent and baselineHeap are the plain container/heap event loop the
// kernel is measured against.
type baselineEvent struct {
	at  int64
	seq uint64
	fn  func()
}

type baselineHeap []*baselineEvent

func (h baselineHeap) Len() int { return len(h) }
func (h baselineHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}
func (h baselineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *baselineHeap) Push(x any)   { *h = append(*h, x.(*baselineEvent)) }
func (h *baselineHeap) Pop() any {
	old := *h
	n := len(old)
	x := old[n-1]
	*h = old[:n-1]
	return x
}

func BenchmarkHoldBaselineContainerHeap(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run("pending="+itoa(n), func(b *testing.B) {
			s := NewStream(1, "hold")
			var h baselineHeap
			var now int64
			var seq uint64
			var hold func()
			schedule := func() {
				seq++
				heap.Push(&h, &baselineEvent{at: now + int64(s.Exp()*holdMean), seq: seq, fn: hold})
			}
			hold = schedule
			for i := 0; i < n; i++ {
				schedule()
			}
			step := func() {
				ev := heap.Pop(&h).(*baselineEvent)
				now = ev.at
				ev.fn()
			}
			for i := 0; i < 2*n; i++ {
				step()
			}
			b.ReportAllocs()
			b.ResetTimer()
			stop := cpuTimer(b)
			for i := 0; i < b.N; i++ {
				step()
			}
			stop()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkMM1 runs an M/M/1 queue at rho 0.9 through a Station: two events
// per customer (arrival, departure).
func BenchmarkMM1(b *testing.B) {
	e := New(1)
	arr, svc := e.Stream("arrivals"), e.Stream("service")
	st := NewStation(e, 1)
	var arrive func(any)
	arrive = func(any) {
		st.Submit(time.Duration(math.Round(svc.Exp()*0.9e6)), nil, nil)
		e.AfterArg(time.Duration(math.Round(arr.Exp()*1e6)), arrive, nil)
	}
	e.AfterArg(0, arrive, nil)
	measureSteps(b, e, 100000)
}

func itoa(n int) string {
	switch {
	case n >= 1000 && n%1000 == 0:
		return itoa(n/1000) + "k"
	}
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(buf[i:])
}

// BenchmarkCPUThreads runs 16 closed-loop threads on 4 processors of a CPU:
// each runs a burst of six 100 us queries, then sleeps (exponential, mean
// 2.4 ms) and wakes for a 10 us continuation: about 80 % busy, so woken
// threads often take a query boundary.
func BenchmarkCPUThreads(b *testing.B) {
	e := New(1)
	cpu := NewCPU(e, 4)
	nap := e.Stream("sleep")
	segs := []time.Duration{100 * time.Microsecond, 100 * time.Microsecond, 100 * time.Microsecond,
		100 * time.Microsecond, 100 * time.Microsecond, 100 * time.Microsecond}
	var burst, sleep, woke func(any)
	burst = func(any) { e.AfterArg(time.Duration(nap.Exp()*2.4e6), sleep, nil) }
	sleep = func(any) { cpu.Wake(10*time.Microsecond, woke, nil) }
	woke = func(any) { cpu.Run(segs, burst, nil) }
	for i := 0; i < 16; i++ {
		cpu.Run(segs, burst, nil)
	}
	measureSteps(b, e, 100000)
	b.ReportMetric(float64(cpu.Stats().Yields)/float64(cpu.Stats().Wakes), "yields/wake")
}

// measureSteps runs e through a warm-up of warm events, then times b.N
// events and reports events/s.
func measureSteps(b *testing.B, e *Env, warm int) {
	for i := 0; i < warm; i++ {
		e.Step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	stop := cpuTimer(b)
	for i := 0; i < b.N; i++ {
		e.Step()
	}
	stop()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
