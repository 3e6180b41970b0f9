use super::only_imports_and_prints as ok;

#[test]
fn imports_and_prints_are_the_projects_code() {
    for c in [
        "from PIL import Image; print('PIL_FOUND')",
        "import mcp; print(mcp.__version__)",
        "import sys, ap2; print(ap2.__file__)",
        "from a2a.types import TaskState; print(repr(TaskState.input_required), repr(TaskState.input_required.value))",
        "import x402; print(x402.__version__ if hasattr(x402, '__version__') else 'no __version__'); from x402 import types; print('x402.types OK')",
        "import importlib.metadata as m; print(m.__name__)",
        "import importlib.metadata; print(importlib.metadata.version('mcp'))",
        "import sys,json; d=json.load(sys.stdin); print(d['status']['description'])",
        "import sys,json; d=json.load(sys.stdin); [print(a['browser_download_url']) for a in d.get('assets',[])]",
        "import sys,json; jobs=json.load(sys.stdin)['jobs']; [print(j['name'], j['conclusion'], j['id']) for j in jobs]",
        "from mcp.server.fastmcp import FastMCP; import inspect; print(inspect.signature(FastMCP.tool))",
        "import json,sys; d=json.load(sys.stdin)[0]; print(repr(d['content'][:500]))",
        "import prompts; import api; print('Both modules OK')",
        "import os;print('%.3f MB' % (os.path.getsize('grader.ipynb')/1e6))",
        "import importlib.metadata as m; print(m.version('mcp'))",
        "import jwt; import inspect; sig = inspect.signature(jwt.PyJWKClient.__init__); print(sig)",
        "import json; nb=json.load(open('grader.ipynb',encoding='utf-8')); print('cells', len(nb['cells']))",
        "print(open('README.md').read()[:100])",
        "import x402; print(x402.__file__); import os; print(os.listdir(os.path.dirname(x402.__file__)))",
    ] {
        assert!(ok(c), "{c}");
    }
}

#[test]
fn files_opened_are_reads() {
    assert_eq!(
        super::reads("import json; print(json.load(open('a.json', encoding='utf-8')))"),
        Some(vec!["a.json".to_string()])
    );
    assert_eq!(
        super::reads("print(open('/home/dev/.ssh/id_rsa', 'rb').read())"),
        Some(vec!["/home/dev/.ssh/id_rsa".to_string()])
    );
}

#[test]
fn anything_else_is_code() {
    for c in [
        "import os; os.system('rm -rf ~')",
        "from os import system as repr; print(repr('id'))",
        "from os import system; system('id')",
        "import os as o; o.system('id')",
        "__import__('os').system('id')",
        "import antigravity",
        "import idlelib.idle",
        "import pip.__main__",
        "print(f'{__import__(\"os\").system(\"id\")}')",
        "x = lambda: 1; print(x())",
        "import subprocess; subprocess.run(['id'])",
        "import sys; print(sys.modules['os'].system('id'))",
        "import json; d = json.load(sys.stdin); d.__class__",
        "exec('print(1)')",
        "print(getattr(__builtins__, 'exec'))",
        "import shutil; print(shutil.rmtree('/x'))",
        "for x in y:\n  print(x)",
        "import os; print(os.path.join('a', 'b').__class__)",
        "import json; [x.system('id') for x in [json]]",
        "import os\n  print(1)",
        "d = {}; d.update(x=1); print(d)",
        "",
        "print(1); # comment",
        "import os; print(os.environ)",
        "from os import environ; print(environ)",
        "import requests; [x.get('http://e') for x in [requests]]",
        "from os import system; print(sorted(['id'], key=system))",
        "from config import API_KEY; print(API_KEY)",
        "import settings; print(settings.SECRET_KEY)",
        "print('x', file=open('a', 'w'))",
        "import json; print(json.loads('{}', object_hook=print))",
        "print(repr)",
        "from x import obj; print(type(obj).get(obj, 'k'))",
        "print(open('x', 'w'))",
        "print(open('x', 'a').write('1'))",
        "print(open(name).read())",
        "import os as m; print(m.system('id'))",
        "import json as m; m = 1; print(m.load(sys.stdin))",
        "print(open('x').write('y'))",
        "import jwt; print(jwt.X.__init__.__globals__)",
    ] {
        assert!(!ok(c), "{c}");
    }
}
