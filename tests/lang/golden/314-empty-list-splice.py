# Splicing into and out of empty lists (no storage yet).
a = []
a.insert(0, 1)
print(a)
b = []
b[0:0] = [1, 2]
print(b)
c = []
c[:] = []
print(c)
d = [1, 2, 3]
d[1:] = []
d[:0] = []
print(d)
e = []
e.insert(-5, "x")
e[5:9] = ["y"]
print(e)
