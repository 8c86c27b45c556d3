module cordon/isolation

go 1.19
