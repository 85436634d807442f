import runpy, sys
import slidesearch.pipeline.query.classify as cl
orig = cl.classify_offline
def patched(angle, v, sv, table):
    c = orig(angle, v, sv, table)
    return c.model_copy(update={"search_types": list(table.names)})
cl.classify_offline = patched
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
