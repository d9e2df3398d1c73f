// Package demo is the smallest complete simrun model: an M/M/c queue (or
// M/G/c, with any service-time distribution) built on the kernel's Station.
// Jobs arrive as a Poisson process, wait in FIFO order for one of c
// identical servers, and leave. It exists so that a newcomer sees a table
// within seconds, and so that the scenario loader, the runner and the result
// document have a model to carry before the storage models land.
//
// Its numbers can be checked against queueing theory: with exponential
// service the mean wait is Erlang C's, W_q = C(c, a) / (c·μ − λ) with
// a = λ/μ; the test holds the model to it within a few per cent.
package demo
