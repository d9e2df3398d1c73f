package sim

import (
	"fmt"
	"time"
)

// Station is a k-server FIFO queue: CPU cores, device channels, a log
// writer. A job holds one server for its service time; jobs that find every
// server busy wait in arrival order. Time integrals are kept so that
// utilisation, mean queue length and mean wait come out exactly.
type Station struct {
	env     *Env
	servers int
	busy    int
	slots   []stationSlot
	idle    []int32 // free slot indexes
	waiting FIFO[job]
	finish  func(any)

	serverStats // since the last ResetStats
}

// serverStats are the counts and exact time integrals that Station and CPU
// report.
type serverStats struct {
	since      Time
	last       Time
	busyArea   int64 // server-nanoseconds
	queueArea  int64 // job-nanoseconds waiting
	arrived    int64
	started    int64
	completed  int64
	waitSum    int64 // ns waited before service, over started jobs
	serviceSum int64 // ns of service, over started jobs
	maxQueue   int
}

// account adds the time since the last change to the integrals.
func (a *serverStats) account(now Time, busy, queued int) {
	dt := int64(now - a.last)
	a.busyArea += dt * int64(busy)
	a.queueArea += dt * int64(queued)
	a.last = now
}

// reset starts a new window at now with queued jobs waiting.
func (a *serverStats) reset(now Time, queued int) {
	*a = serverStats{since: now, last: now, maxQueue: queued}
}

// summary returns the window's statistics up to now (account first).
func (a *serverStats) summary(now Time, servers int) StationStats {
	st := StationStats{
		Elapsed:   time.Duration(now - a.since),
		Arrived:   a.arrived,
		Started:   a.started,
		Completed: a.completed,
		MaxQueue:  a.maxQueue,
	}
	if el := float64(st.Elapsed); el > 0 {
		st.MeanBusy = float64(a.busyArea) / el
		st.Utilization = st.MeanBusy / float64(servers)
		st.MeanQueue = float64(a.queueArea) / el
	}
	if a.started > 0 {
		st.MeanWait = time.Duration(a.waitSum / a.started)
		st.MeanService = time.Duration(a.serviceSum / a.started)
	}
	return st
}

type job struct {
	service time.Duration
	done    func(any)
	arg     any
	queued  Time
}

type stationSlot struct {
	job
	index int32
}

// NewStation returns a station with the given number of servers. It panics
// if servers < 1.
func NewStation(env *Env, servers int) *Station {
	if servers < 1 {
		panic(fmt.Sprintf("sim: station needs at least one server, got %d", servers))
	}
	s := &Station{env: env, servers: servers, slots: make([]stationSlot, servers)}
	s.idle = make([]int32, servers)
	for i := range s.slots {
		s.slots[i].index = int32(i)
		s.idle[servers-1-i] = int32(i)
	}
	s.finish = s.onFinish
	s.reset(env.now, 0)
	return s
}

// Servers returns the number of servers.
func (s *Station) Servers() int { return s.servers }

// Busy returns the number of servers in service now.
func (s *Station) Busy() int { return s.busy }

// QueueLen returns the number of jobs waiting for a server.
func (s *Station) QueueLen() int { return s.waiting.Len() }

// Submit queues a job needing service time d; done(arg) runs when its
// service ends. It panics if d is negative.
func (s *Station) Submit(d time.Duration, done func(any), arg any) {
	if d < 0 {
		panic(fmt.Sprintf("sim: negative service time %v", d))
	}
	s.account()
	s.arrived++
	j := job{service: d, done: done, arg: arg, queued: s.env.now}
	if s.busy < s.servers {
		s.start(j)
		return
	}
	s.waiting.Push(j)
	if s.waiting.Len() > s.maxQueue {
		s.maxQueue = s.waiting.Len()
	}
}

func (s *Station) start(j job) {
	n := len(s.idle) - 1
	i := s.idle[n]
	s.idle = s.idle[:n]
	s.busy++
	s.started++
	s.waitSum += int64(s.env.now - j.queued)
	s.serviceSum += int64(j.service)
	slot := &s.slots[i]
	slot.job = j
	s.env.AfterArg(j.service, s.finish, slot)
}

func (s *Station) onFinish(a any) {
	slot := a.(*stationSlot)
	done, arg := slot.done, slot.arg
	slot.job = job{}
	s.account()
	s.busy--
	s.completed++
	s.idle = append(s.idle, slot.index)
	if s.waiting.Len() > 0 {
		s.start(s.waiting.Pop())
	}
	if done != nil {
		done(arg)
	}
}

func (s *Station) account() { s.serverStats.account(s.env.now, s.busy, s.waiting.Len()) }

// ResetStats forgets the statistics gathered so far (the end of a warm-up);
// jobs in service and waiting are kept.
func (s *Station) ResetStats() {
	s.account()
	s.reset(s.env.now, s.waiting.Len())
}

// StationStats summarises a station since its last ResetStats.
type StationStats struct {
	Elapsed     time.Duration
	Arrived     int64
	Started     int64
	Completed   int64
	Utilization float64 // mean fraction of servers busy, 0..1
	MeanBusy    float64 // mean number of busy servers
	MeanQueue   float64 // mean number of jobs waiting (not in service)
	MaxQueue    int
	MeanWait    time.Duration // mean time from Submit to start of service
	MeanService time.Duration
}

// Stats returns the station's statistics up to now.
func (s *Station) Stats() StationStats {
	s.account()
	return s.summary(s.env.now, s.servers)
}
