"""The exceptions of the storq package: one class per way a file can be unusable."""


class FormatError(ValueError):
    """The file is not a storq results file this reader understands."""


class DamagedFile(FormatError):
    """The file is damaged: a stored value does not match its checksum, or HDF5 cannot read an
    object the file says is there. .path and .object name where; nothing of it is returned."""

    def __init__(self, path, obj, what, point=None):
        # point: the point whose row failed its checksum (2.x files), else None
        self.path, self.object, self.what, self.point = str(path), obj, what, point
        super().__init__(f"{self.path}: object '{obj}': {what}: the file is damaged")
