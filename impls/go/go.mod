module concbench-go

go 1.19
