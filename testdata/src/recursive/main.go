// Command recursive writes a small CPU profile of direct and mutual
// recursion: a recursive-descent expression parser and evaluator (parse →
// parseSum → parseProduct → parseAtom → parse), a tree walk through an
// interface (walk → (*node).visit → walk) and a naive Fibonacci (fib →
// fib). It is how testdata/go/recursive.pb.gz was made:
//
//	go run ./testdata/src/recursive /tmp/recursive.pb.gz
package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

type parser struct {
	s   string
	pos int
}

func (p *parser) peek() byte {
	if p.pos < len(p.s) {
		return p.s[p.pos]
	}
	return 0
}

func parse(p *parser) int { return parseSum(p) }

func parseSum(p *parser) int {
	v := parseProduct(p)
	for p.peek() == '+' || p.peek() == '-' {
		op := p.peek()
		p.pos++
		w := parseProduct(p)
		if op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v
}

func parseProduct(p *parser) int {
	v := parseAtom(p)
	for p.peek() == '*' {
		p.pos++
		v = v * parseAtom(p) % 1000003
	}
	return v
}

func parseAtom(p *parser) int {
	if p.peek() == '(' {
		p.pos++
		v := parse(p)
		p.pos++ // ')'
		return v
	}
	v := 0
	for p.peek() >= '0' && p.peek() <= '9' {
		v = v*10 + int(p.peek()-'0')
		p.pos++
	}
	return v
}

// expr is a nested expression depth levels deep.
func expr(depth int) string {
	if depth == 0 {
		return "7"
	}
	inner := expr(depth - 1)
	return "(" + inner + "+3*" + inner + "-2)"
}

type visitor interface{ visit(depth int) int }

type node struct{ kids []visitor }

func (n *node) visit(depth int) int {
	s := 1
	for _, k := range n.kids {
		s += walk(k, depth+1)
	}
	for i := 0; i < 20; i++ {
		s = s*31 + i
	}
	return s
}

func walk(v visitor, depth int) int { return v.visit(depth) }

func build(depth int) *node {
	n := &node{}
	if depth > 0 {
		for i := 0; i < 3; i++ {
			n.kids = append(n.kids, build(depth-1))
		}
	}
	return n
}

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	e := expr(10)
	t := build(7)
	sum := 0
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		sum += parse(&parser{s: e})
		sum += walk(t, 0)
		sum += fib(22)
	}
	pprof.StopCPUProfile()
	f.Close()
	fmt.Println(sum, strings.Count(e, "("))
}
