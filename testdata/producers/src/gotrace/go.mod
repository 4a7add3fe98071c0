module gotrace

go 1.26
