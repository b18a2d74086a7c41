# gdb script for a guest hung under QEMU's gdbstub: for each CPU, find the
# sysvec_* interrupt frame, print the interrupted ip and RFLAGS from its
# pt_regs, and walk the frame pointers of the interrupted context (needs the
# gdb kernel variant: scripts/build-kernel.sh gdb).
#   gdb -batch build/kernel-gdb/vmlinux -ex "target remote :1234" \
#       -ex "source scripts/gdb-walk-irq-frame.py"
import gdb
def walk():
    for th in gdb.selected_inferior().threads():
        th.switch()
        f = gdb.newest_frame()
        while f is not None:
            if f.name() and f.name().startswith('sysvec_') or (f.name() or '').startswith('instr_sysvec'):
                try:
                    regs = f.read_var('regs')
                except Exception:
                    f = f.older(); continue
                ip = int(regs['ip']); bp = int(regs['bp']); flags = int(regs['flags'])
                print("=== thread %d interrupted at %s flags=%#x" % (th.num, gdb.execute("info symbol %#x" % ip, to_string=True).strip(), flags))
                print(gdb.execute("info line *%#x" % ip, to_string=True).strip())
                for i in range(40):
                    if bp == 0: break
                    try:
                        ret = int(gdb.parse_and_eval("*(unsigned long *)%#x" % (bp + 8)))
                        nbp = int(gdb.parse_and_eval("*(unsigned long *)%#x" % bp))
                    except Exception as e:
                        print("  stop:", e); break
                    print("  #%d %s" % (i, gdb.execute("info symbol %#x" % ret, to_string=True).strip()))
                    print("      " + gdb.execute("info line *%#x" % (ret - 1), to_string=True).strip())
                    bp = nbp
                break
            f = f.older()
walk()
