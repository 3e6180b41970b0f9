//! The names the grammar knows: builtins and module functions that only compute or read, data
//! methods, keywords, and the attributes that only name things.

pub(super) const PURE_BUILTINS: &[&str] = &[
    "print", "repr", "str", "len", "type", "sorted", "list", "tuple", "dict", "set", "dir",
    "hasattr", "isinstance", "bool", "int", "float", "sum", "min", "max", "abs", "round", "hex",
    "enumerate", "zip", "range", "reversed", "any", "all", "format", "chr", "ord",
];

/// Functions of a module (imported under its own name) that read and compute only.
#[rustfmt::skip]
pub(super) const PURE_MODULE_FUNCTIONS: &[&str] = &[
    "json.load", "json.loads", "json.dumps", "importlib.metadata.version", "inspect.signature",
    "inspect.getsource", "inspect.getfile", "os.path.dirname", "os.path.basename", "os.path.join",
    "os.path.exists", "os.path.isfile", "os.path.isdir", "os.path.getsize", "os.listdir",
    "os.getcwd", "sys.stdin.read", "platform.python_version", "platform.system",
    "platform.machine",
];

/// Methods of plain data (str, list, dict from JSON or literals).
#[rustfmt::skip]
pub(super) const DATA_METHODS: &[&str] = &[
    "get", "keys", "values", "items", "split", "strip", "lower", "upper", "startswith", "endswith",
    "join", "replace", "count", "index", "find",
];

/// Keyword arguments that only format what is printed or dumped.
pub(super) const FORMAT_KEYWORDS: &[&str] = &["sep", "end", "flush", "indent", "sort_keys", "ensure_ascii"];

/// Builtins whose result is plain data whatever they are given (a string, number or bool).
#[rustfmt::skip]
pub(super) const DATA_RESULT: &[&str] = &[
    "print", "repr", "str", "len", "bool", "int", "float", "hex", "hasattr", "isinstance",
    "format", "chr", "ord", "round", "abs", "sum", "any", "all", "dir",
];

/// Names never read: the environment holds secrets.
pub(super) const SECRET_HOLDERS: &[&str] = &["environ", "environb", "getenv", "getenvb"];

/// Attributes that start with `_` and only name things.
#[rustfmt::skip]
pub(super) const NAMING_DUNDERS: &[&str] = &[
    "__version__", "__file__", "__name__", "__path__", "__doc__", "__init__", "__module__",
    "__qualname__",
];

/// Modules whose import does more than define things: a browser, an IDE, a program's main.
pub(super) const ACTING_MODULES: &[&str] = &["antigravity", "idlelib", "turtledemo", "this"];

pub(super) const KEYWORDS_OK: &[&str] = &[
    "import", "from", "as", "if", "else", "for", "in", "not", "and", "or", "is", "None", "True",
    "False",
];

pub(super) const OTHER_KEYWORDS: &[&str] = &[
    "def", "class", "lambda", "with", "while", "try", "except", "finally", "raise", "return",
    "yield", "global", "nonlocal", "del", "assert", "async", "await", "pass", "break", "continue",
    "elif", "match", "case", "exec", "eval", "open", "compile", "input", "getattr", "setattr",
    "delattr", "globals", "locals", "vars", "breakpoint", "help", "memoryview", "object", "super",
    "staticmethod", "classmethod", "property", "exit", "quit",
];
