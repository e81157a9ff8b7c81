# float() calls __float__ (then __index__) and lets their exceptions through.
class A:
    def __float__(self):
        raise ValueError("boom")
class B:
    def __float__(self):
        return "x"
class C:
    pass
class D:
    def __index__(self):
        return 3
class E:
    def __float__(self):
        return 1.5
for obj in (A(), B(), C(), D(), E()):
    try:
        print(float(obj))
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
