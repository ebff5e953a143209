/* rednotebook-suggestions: RedNotebook with "Insert a journaling suggestion".
 *
 * A program of its own, embedding Python, rather than a script: pickerd knows an app on the host by
 * its executable file (Documentation/app-developers.md, "Apps: who may present the picker"), and a
 * script's executable is the interpreter, which would name every Python program. This one runs one
 * script, fixed when it was built (REDNOTEBOOK_SUGGESTIONS_SCRIPT), in isolated mode (-I: no
 * PYTHONPATH, no user site, not the current folder), so the executable pickerd allows is
 * RedNotebook with suggestions and nothing else. */
#include <Python.h>
#include <stdlib.h>

#ifndef REDNOTEBOOK_SUGGESTIONS_SCRIPT
#error "REDNOTEBOOK_SUGGESTIONS_SCRIPT must name the script (meson defines it)"
#endif

int
main (int argc, char **argv)
{
  char **arguments = calloc ((size_t) argc + 3, sizeof *arguments);
  if (arguments == NULL)
    return 1;
  arguments[0] = argv[0];
  arguments[1] = (char *) "-I";
  arguments[2] = (char *) REDNOTEBOOK_SUGGESTIONS_SCRIPT;
  for (int i = 1; i < argc; i++)
    arguments[i + 2] = argv[i];
  return Py_BytesMain (argc + 2, arguments);
}
