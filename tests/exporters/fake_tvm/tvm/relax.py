"""tvm.relax of the stand-in: build records the level of the enclosing PassContext."""


class _Executable:
    def __init__(self, level):
        self.level = level


def build(module, target=None):
    import tvm

    return _Executable(tvm._level[0])


class VirtualMachine:
    def __init__(self, executable, device):
        self._level = executable.level

    def __getitem__(self, name):
        import tvm

        return lambda *args: tvm._main(self._level, *args)
