"""Reader of mpi_api.txt, the description of rdmach's MPI API (format in its header).

Shared by the generators (gen_*.py); Python 3 standard library only.
"""
import re
import sys

HANDLE_KINDS = {
    'COMM': 'MPI_Comm', 'GROUP': 'MPI_Group', 'DATATYPE': 'MPI_Datatype', 'OP': 'MPI_Op',
    'INFO': 'MPI_Info', 'WIN': 'MPI_Win', 'REQUEST': 'MPI_Request',
    'ERRHANDLER': 'MPI_Errhandler', 'MESSAGE': 'MPI_Message', 'FILE': 'MPI_File',
    'SESSION': 'MPI_Session',
}
# Kinds whose value is an int in C (and a default INTEGER in Fortran).
INT_KINDS = {'COUNT', 'DISP', 'INT', 'RANK', 'TAG', 'KEYVAL', 'LOGICAL', 'INDEX'}
SCALAR_C = dict({k: 'int' for k in INT_KINDS}, AINT='MPI_Aint', XCOUNT='MPI_Count',
                DOUBLE='double', OFFSET='MPI_Offset', EXTENT='MPI_Aint', FINT='MPI_Fint',
                **HANDLE_KINDS)
# POLY kinds: the type they take in a large-count (_c) entry point.
POLY_C = {'COUNT': 'MPI_Count', 'DISP': 'MPI_Aint', 'EXTENT': 'MPI_Count'}
KINDS = set(SCALAR_C) | {'BUFFER', 'STATUS', 'FINT_STATUS', 'F08_STATUS', 'STRING', 'C_PTR', 'ATTRVAL',
                         'EXTRA_STATE', 'CALLBACK', 'ARGC', 'ARGV', 'STRING_ARRAY',
                         'ARGV_ARRAY', 'VARARGS', 'TYPED'}
DIRECTIONS = {'in', 'out', 'inout'}
FLAGS = {'nonconst', 'fint'}


class DescriptionError(Exception):
    pass


class Param:
    def __init__(self, name, kind, direction, opts, where):
        self.name, self.kind, self.dir = name, kind, direction
        self.len = opts.get('len')
        self.shape = opts.get('shape')
        self.type = opts.get('type')
        self.nonconst = 'nonconst' in opts
        self.fint = 'fint' in opts
        self.poly = 'poly' in opts
        self.filled = opts.get('filled')
        self.strip = 'strip' in opts
        self.fchoice = 'fchoice' in opts
        self.fvalue = opts.get('fvalue')
        if kind not in KINDS:
            raise DescriptionError(f'{where}: unknown kind {kind}')
        if kind != 'VARARGS' and direction not in DIRECTIONS:
            raise DescriptionError(f'{where}: direction must be in, out or inout, not {direction}')
        if kind in ('CALLBACK', 'TYPED') and not self.type:
            raise DescriptionError(f'{where}: a {kind} needs type=')

    @property
    def in_fortran(self):
        """Whether the Fortran binding has it: not MPI_INIT's argc and argv,
        nor a C varargs, nor one with a fixed C value (fvalue=)."""
        return self.kind not in ('ARGC', 'ARGV', 'VARARGS') and self.fvalue is None

    @property
    def is_array(self):
        return self.len is not None

    def c_type(self, large=False):
        """The parameter's C type in the prototype (large: the _c variant)."""
        k, d = self.kind, self.dir
        const = 'const ' if d == 'in' and not self.nonconst else ''
        if k == 'VARARGS':
            return '...'
        if k == 'BUFFER':
            return const + 'void *'
        if k in ('C_PTR', 'ATTRVAL', 'EXTRA_STATE'):
            return 'void *'
        if k == 'CALLBACK':
            return self.type + ('_c' if large and self.poly else '') + ' *'
        if k == 'STATUS':
            return const + 'MPI_Status *'
        if k == 'FINT_STATUS':
            return const + 'MPI_Fint *'
        if k == 'F08_STATUS':
            return const + 'MPI_F08_status *'
        if k == 'STRING':
            return const + 'char *'
        if k == 'ARGC':
            return 'int *'
        if k == 'ARGV':
            return 'char ***'
        if k == 'STRING_ARRAY':
            return 'char **'
        if k == 'ARGV_ARRAY':
            return 'char ***'
        base = self.type if k == 'TYPED' else POLY_C[k] if large and k in POLY_C else SCALAR_C[k]
        if self.is_array:
            if self.shape:
                return f'{const}{base} (*)[{self.shape}]'
            return const + base + ' *'
        return base if d == 'in' else base + ' *'


class Function:
    def __init__(self, name, version, opts, where):
        self.name, self.version = name, version
        self.returns = opts.get('returns')
        self.deprecated = 'deprecated' in opts
        self.missing = 'missing' in opts
        self.fortran = opts.get('fortran', 'generated')
        self.large = opts.get('large', 'poly')
        self.params = []
        if not re.fullmatch(r'\d+\.\d+', version):
            raise DescriptionError(f'{where}: MPI version {version!r} is not N.M')
        if self.fortran not in ('generated', 'special', 'none', 'unbound', 'f08types', 'large'):
            raise DescriptionError(f'{where}: fortran= must be special, none, unbound, f08types or large')
        if self.large not in ('poly', 'none', 'defined', 'generated'):
            raise DescriptionError(f'{where}: large= must be none, defined or generated')

    @property
    def c_name(self):
        return 'MPI_' + self.name

    @property
    def c_names(self):
        """The C functions the library defines for it: MPI_<Name>, and
        MPI_<Name>_c where large=defined or generated (PMPI_ for each too)."""
        names = [self.c_name] + ([self.c_name + '_c'] if self.defines_large else [])
        return names + ['P' + n for n in names]

    @property
    def defines_large(self):
        return self.large in ('defined', 'generated')

    def c_return(self):
        return SCALAR_C[self.returns] if self.returns else 'int'

    def c_params(self, large=False):
        return [p.c_type(large) for p in self.params] or ['void']


def _options(words, where):
    opts = {}
    for w in words:
        if '=' in w:
            k, v = w.split('=', 1)
            opts[k] = v
        else:
            opts[w] = True
    return opts


def load(path):
    """The functions of the description, in its order."""
    functions = []
    seen = set()
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            where = f'{path}:{lineno}'
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            words = line.split()
            if not line[0].isspace():
                if len(words) < 2:
                    raise DescriptionError(f'{where}: a function line is "<Name> <version> ..."')
                fn = Function(words[0], words[1], _options(words[2:], where), where)
                if fn.name in seen:
                    raise DescriptionError(f'{where}: {fn.name} described twice')
                seen.add(fn.name)
                functions.append(fn)
                continue
            if not functions:
                raise DescriptionError(f'{where}: a parameter before any function')
            if words[0] == '...':
                functions[-1].params.append(Param('...', 'VARARGS', None, {}, where))
                continue
            if len(words) < 3:
                raise DescriptionError(f'{where}: a parameter line is "<name> <KIND> <direction> ..."')
            functions[-1].params.append(Param(words[0], words[1], words[2],
                                              _options(words[3:], where), where))
    return functions


if __name__ == '__main__':
    fns = load(sys.argv[1])
    print(f'{len(fns)} functions, {sum(len(f.params) for f in fns)} parameters, '
          f'{sum(f.missing for f in fns)} missing')
