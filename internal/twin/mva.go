package twin

import (
	"errors"
	"fmt"
	"math"
)

// Station is one service centre of the network.
type Station struct {
	Name    string
	Demand  float64 // seconds of service per transaction
	Servers int     // 1 for a single server; m > 1 by Seidmann's approximation; 0 for a pure delay
}

// Estimate is the solution of the network at N customers.
type Estimate struct {
	Throughput float64   // transactions per second
	Response   float64   // seconds per transaction, think time excluded
	Util       []float64 // per station, fraction of its servers busy
	Bound      string    // the station with the highest utilisation
}

// MVA solves the closed network with n customers and think time z
// (seconds) by exact mean-value analysis.
func MVA(stations []Station, n int, z float64) (Estimate, error) {
	if n < 1 {
		return Estimate{}, fmt.Errorf("twin: %d customers, want >= 1", n)
	}
	if z < 0 || math.IsNaN(z) {
		return Estimate{}, errors.New("twin: negative think time")
	}
	type centre struct {
		d     float64 // queueing demand
		delay float64 // pure delay
	}
	cs := make([]centre, len(stations))
	for i, s := range stations {
		if s.Demand < 0 || math.IsNaN(s.Demand) {
			return Estimate{}, fmt.Errorf("twin: station %s: negative demand", s.Name)
		}
		switch {
		case s.Servers <= 0:
			cs[i].delay = s.Demand
		case s.Servers == 1:
			cs[i].d = s.Demand
		default:
			m := float64(s.Servers)
			cs[i].d, cs[i].delay = s.Demand/m, s.Demand*(m-1)/m
		}
	}
	q := make([]float64, len(cs))
	var x, r float64
	for k := 1; k <= n; k++ {
		r = 0
		rk := make([]float64, len(cs))
		for i, c := range cs {
			rk[i] = c.d*(1+q[i]) + c.delay
			r += rk[i]
		}
		if z+r <= 0 {
			return Estimate{}, errors.New("twin: every demand and the think time are zero")
		}
		x = float64(k) / (z + r)
		for i, c := range cs {
			q[i] = x * c.d * (1 + q[i])
		}
	}
	e := Estimate{Throughput: x, Response: r, Util: make([]float64, len(stations))}
	best := -1.0
	for i, s := range stations {
		u := x * s.Demand
		if s.Servers > 1 {
			u /= float64(s.Servers)
		}
		e.Util[i] = u
		if s.Servers > 0 && u > best {
			best, e.Bound = u, s.Name
		}
	}
	return e, nil
}
