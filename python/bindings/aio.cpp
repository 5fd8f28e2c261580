// Queue marks for tack.sync_async / Field.numpy_async (python/tack/_aio.py): taken at the call on
// the calling thread, waited on in one of Tack's wait threads with the GIL released, so the
// event loop keeps running while a device works.
#include <memory>
#include <vector>

#include "bindings.hpp"
#include "runtime/registry.hpp"

namespace tack::python {

namespace {

struct QueueMarks {
    std::vector<std::shared_ptr<runtime::QueueMark>> marks;  // shared: the type is copyable
};

void wait_marks(QueueMarks& self) {
    nb::gil_scoped_release release;
    for (auto& m : self.marks)
        m->wait();
    self.marks.clear();
}

}  // namespace

void init_aio(nb::module_& m) {
    nb::class_<QueueMarks>(m, "_QueueMarks")
        .def("wait", &wait_marks)
        .def("__len__", [](const QueueMarks& q) { return q.marks.size(); });
    m.def("_mark_all", [] {
        QueueMarks q;
        for (auto& mark : runtime::mark_all())
            q.marks.push_back(std::move(mark));
        return q;
    });
    m.def("_mark_field", [](const Field& f) {
        QueueMarks q;
        if (auto mark = f.array.buffer()->backend().mark_queue())
            q.marks.push_back(std::move(mark));
        return q;
    });
}

}  // namespace tack::python
