module goheap

go 1.26
